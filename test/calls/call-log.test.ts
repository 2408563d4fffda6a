// The call log: phones report their calls on the `calls` topic (QoS 2, acknowledged once
// stored, stored once per phone call id), the account reads them through GET /calls and
// GET /calls/{id} (calls:read, newest first, filtered, never another account's) and deletes
// them with DELETE /calls/{id} (calls:delete), a missed call raises call.missed, and a deleted
// phone's calls go with it.
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { useGateway } from '../support/use-gateway.ts';
import { registerDevice, type Tenant } from '../support/tenant.ts';
import { expectError, expectIsoTimestamp, MALFORMED_IDS, UNKNOWN_ID, UUID } from '../support/expectations.ts';
import { topic, type RawClient } from '../support/mqtt.ts';
import { createWebhook, deliveryLog, dropWebhooks, expectEnvelope, verified, webhookConfig } from '../support/webhooks.ts';
import type { Received } from '../support/receiver.ts';
import { MAX_DEVICE_PAYLOAD_BYTES } from '../../broker/payloads.ts';
import { PERMISSIONS, type Permission } from '../../src/modules/api-keys/permissions.ts';
import type { CallRow, RecordingRow } from '../../src/modules/calls/types.ts';
import { ALL_BEFORE, grantCallPermissions } from '../../db/migrations/20261123_012_calls.ts';
import { callRowsOf, insertRecording, recordingRowsOf } from '../support/test-data.ts';

const REJECTED = 'device_messages_rejected_total';
const CALL_KEYS = ['id', 'device_id', 'device_call_id', 'direction', 'phone', 'sim_slot', 'started_at', 'duration_seconds', 'created_at', 'recording'];
const RECORDING_KEYS = ['size_bytes', 'content_type', 'duration_seconds', 'sha256', 'created_at', 'download_path'];
const T0 = Date.parse('2026-03-01T10:00:00.000Z');
const at = (minutes: number) => new Date(T0 + minutes * 60_000).toISOString();

interface ReportedCall {
  id: string;
  direction: string;
  phone: string;
  started_at: string;
  duration_seconds?: number;
  sim_slot?: number;
}

interface Phone {
  id: string;
  mqtt: RawClient;
}

describe('calls: the call log', () => {
  const fx = useGateway({ config: { webhooks: webhookConfig() } });

  async function phone(owner: Tenant = fx.tenant): Promise<Phone> {
    const { device, token } = await registerDevice(fx.gateway, owner);
    return { id: device.id, mqtt: await fx.clients.device(device.id, token) };
  }

  /** Reports a call as the app does: QoS 2, so it resolves once the gateway has handled it. */
  async function report(device: Phone, call: Partial<ReportedCall> = {}): Promise<ReportedCall> {
    const reported: ReportedCall = { id: randomUUID(), direction: 'incoming', phone: '+79005550101', started_at: at(0), duration_seconds: 42, sim_slot: 0, ...call };
    await device.mqtt.publish(topic(device.id, 'calls'), JSON.stringify(reported), { qos: 2 });
    return reported;
  }

  const storedRows = (accountId: string = fx.tenant.accountId): Promise<CallRow[]> => callRowsOf(fx, accountId);

  /** Listens for "call.deleted" on the gateway's event seam for the rest of the test. */
  function hearDeletions(): { heard: { call: CallRow; recording: RecordingRow | undefined }[]; next(): Promise<void> } {
    const heard: { call: CallRow; recording: RecordingRow | undefined }[] = [];
    let wake: () => void = () => {};
    const stop = fx.gateway.services.events.on('call.deleted', async ({ call, recording }) => {
      heard.push({ call, recording });
      wake();
    });
    fx.onCleanup(stop);
    return { heard, next: () => new Promise<void>((resolve) => (wake = resolve)) };
  }

  async function withRecording(callId: string): Promise<RecordingRow> {
    const row = { call_id: callId, storage_key: `test/${callId}`, size_bytes: 1234, content_type: 'audio/wav', duration_seconds: 1.5, sha256: 'a'.repeat(64), created_at: new Date(T0) };
    await insertRecording(fx, row);
    return row;
  }

  describe('when a phone reports a call on its calls topic', () => {
    it('then it is stored and GET /calls and GET /calls/{id} show it as reported, the number in E.164', async () => {
      const device = await phone();
      const call = await report(device, { direction: 'outgoing', phone: '+7 (900) 555-01-99', sim_slot: 1, duration_seconds: 95, started_at: at(-3) });
      const list = await fx.tenant.api.get('/calls');
      expect(list.status, JSON.stringify(list.body)).to.equal(200);
      expect(list.body.next_cursor).to.equal(null);
      expect(list.body.data).to.have.length(1);
      const [stored] = list.body.data;
      expect(Object.keys(stored)).to.have.members(CALL_KEYS);
      expect(stored.id).to.match(UUID);
      expect(stored).to.include({
        device_id: device.id,
        device_call_id: call.id,
        direction: 'outgoing',
        phone: '+79005550199',
        sim_slot: 1,
        started_at: at(-3),
        duration_seconds: 95,
        recording: null,
      });
      expectIsoTimestamp(stored.created_at, 'created_at');
      const one = await fx.tenant.api.get(`/calls/${stored.id}`);
      expect(one.status).to.equal(200);
      expect(one.body).to.deep.equal(stored);
      expect(device.mqtt.closed).to.equal(false);
    });

    it('then a number that is no phone number (withheld, a service code) is kept as the phone reported it', async () => {
      const device = await phone();
      await report(device, { phone: 'Unknown', direction: 'missed', duration_seconds: 0 });
      await report(device, { phone: '*100#', direction: 'outgoing' });
      const reply = await fx.tenant.api.get('/calls');
      expect(reply.body.data.map((call: { phone: string }) => call.phone)).to.have.members(['Unknown', '*100#']);
    });

    it('then without sim_slot and duration_seconds it is stored with sim_slot null and duration 0', async () => {
      const device = await phone();
      await report(device, { direction: 'missed', sim_slot: undefined, duration_seconds: undefined });
      const [stored] = (await fx.tenant.api.get('/calls')).body.data;
      expect(stored).to.include({ sim_slot: null, duration_seconds: 0, direction: 'missed' });
    });

    it('then the same phone call id reported again is acknowledged and changes nothing', async () => {
      const device = await phone();
      const call = await report(device);
      const first = await storedRows();
      await report(device, call);
      await report(device, { ...call, direction: 'missed', phone: '+79005550111', duration_seconds: 1 });
      expect(await storedRows()).to.deep.equal(first);
      expect(device.mqtt.closed).to.equal(false);
    });

    it('then two phones may use the same call id, each stored for its own phone', async () => {
      const first = await phone();
      const second = await phone();
      const call = await report(first);
      await report(second, call);
      const reply = await fx.tenant.api.get('/calls');
      expect(reply.body.data.map((row: { device_id: string }) => row.device_id)).to.have.members([first.id, second.id]);
    });

    it('then the simulator\'s reportCall is stored as reported', async () => {
      const device = await fx.connectDevice();
      const id = await device.reportCall({ direction: 'missed', phone: '+79005550123', simSlot: 0, startedAt: new Date(T0) });
      const [stored] = (await fx.tenant.api.get('/calls')).body.data;
      expect(stored).to.include({ device_id: device.id, device_call_id: id, direction: 'missed', phone: '+79005550123', sim_slot: 0, started_at: at(0), duration_seconds: 0 });
    });
  });

  describe('when a phone reports a bad call', () => {
    const valid = () => ({ id: randomUUID(), direction: 'incoming', phone: '+79005550101', started_at: at(0), duration_seconds: 1 });
    const BAD: { what: string; reason: string; payload: () => string | Buffer }[] = [
      { what: 'malformed JSON', reason: 'malformed_json', payload: () => '{"id":' },
      { what: 'an unknown direction', reason: 'invalid_payload', payload: () => JSON.stringify({ ...valid(), direction: 'forwarded' }) },
      { what: 'an empty call id', reason: 'invalid_payload', payload: () => JSON.stringify({ ...valid(), id: '' }) },
      { what: 'a call id over 64 characters', reason: 'invalid_payload', payload: () => JSON.stringify({ ...valid(), id: 'x'.repeat(65) }) },
      { what: 'no phone', reason: 'invalid_payload', payload: () => JSON.stringify({ ...valid(), phone: undefined }) },
      { what: 'a start that is no date', reason: 'invalid_payload', payload: () => JSON.stringify({ ...valid(), started_at: 'yesterday' }) },
      { what: 'a negative duration', reason: 'invalid_payload', payload: () => JSON.stringify({ ...valid(), duration_seconds: -1 }) },
      { what: 'a fractional duration', reason: 'invalid_payload', payload: () => JSON.stringify({ ...valid(), duration_seconds: 1.5 }) },
      { what: 'a SIM slot over 7', reason: 'invalid_payload', payload: () => JSON.stringify({ ...valid(), sim_slot: 8 }) },
      { what: 'an unknown field', reason: 'invalid_payload', payload: () => JSON.stringify({ ...valid(), recording: 'AAAA' }) },
      { what: 'a NUL in the phone', reason: 'invalid_payload', payload: () => JSON.stringify({ ...valid(), phone: '+7900\u0000' }) },
      { what: 'a payload over 64 KiB', reason: 'payload_too_large', payload: () => JSON.stringify({ ...valid(), phone: 'x'.repeat(MAX_DEVICE_PAYLOAD_BYTES) }) },
    ];

    for (const bad of BAD) {
      it(`then ${bad.what} is counted as rejected (${bad.reason}), nothing is stored, and the connection stays up`, async () => {
        const device = await phone();
        const counted = fx.gateway.services.metrics.value(REJECTED, { reason: bad.reason });
        await device.mqtt.publish(topic(device.id, 'calls'), bad.payload(), { qos: 2 });
        expect(fx.gateway.services.metrics.value(REJECTED, { reason: bad.reason }), `${REJECTED}{reason="${bad.reason}"}`).to.equal(counted + 1);
        expect(await storedRows()).to.deep.equal([]);
        expect(device.mqtt.closed, 'the connection stays up').to.equal(false);
        await report(device);
        expect(await storedRows()).to.have.length(1);
      });
    }
  });

  describe('when a missed call is reported', () => {
    const ofType = (type: string) => (request: Received) => request.json?.type === type;

    it('then a webhook for call.missed gets the call as GET /calls/{id} shows it, once however often it is reported', async () => {
      const receiver = await fx.receiver();
      const { webhook, secret } = await createWebhook(fx.tenant, receiver.url, ['call.missed']);
      fx.onCleanup(() => dropWebhooks(fx.gateway, [fx.tenant.accountId]));
      const device = await phone();
      await report(device, { direction: 'incoming' });
      const missed = await report(device, { direction: 'missed', duration_seconds: 0, phone: '+79005550177' });
      await report(device, missed);
      const [request] = await receiver.waitFor(1, ofType('call.missed'));
      const event = verified(secret, request!);
      expectEnvelope(event, 'call.missed', fx.tenant.accountId);
      expect(Object.keys(event.data)).to.deep.equal(['call']);
      const stored = await fx.tenant.api.get(`/calls/${event.data.call.id}`);
      expect(event.data.call).to.deep.equal(stored.body);
      expect(event.data.call).to.include({ device_call_id: missed.id, direction: 'missed', phone: '+79005550177' });
      // The incoming call and the repeat raised nothing: one delivery in the log.
      expect((await deliveryLog(fx.tenant, webhook.id)).map((delivery) => delivery.event_type)).to.deep.equal(['call.missed']);
    });
  });

  describe('when the account has many calls', () => {
    async function scene(): Promise<{ first: Phone; second: Phone; calls: ReportedCall[] }> {
      const first = await phone();
      const second = await phone();
      // Reported out of order: the list is by when the call started, not when it was reported.
      const calls = [
        await report(first, { started_at: at(3), direction: 'incoming', phone: '+79005550001' }),
        await report(first, { started_at: at(1), direction: 'missed', phone: '+79005550002', duration_seconds: 0 }),
        await report(second, { started_at: at(4), direction: 'outgoing', phone: '+79005550001' }),
        await report(first, { started_at: at(0), direction: 'outgoing', phone: '+79005550003' }),
        await report(second, { started_at: at(2), direction: 'missed', phone: '+79005550001', duration_seconds: 0 }),
      ];
      return { first, second, calls };
    }

    const ids = (reply: { body: { data: { device_call_id: string }[] } }) => reply.body.data.map((call) => call.device_call_id);
    const byStart = (calls: ReportedCall[]) => [...calls].sort((a, b) => b.started_at.localeCompare(a.started_at)).map((call) => call.id);

    it('then GET /calls pages them newest first with limit and cursor', async () => {
      const { calls } = await scene();
      const seen: string[] = [];
      const pageSizes: number[] = [];
      let cursor: string | null = null;
      do {
        const reply: { status: number; body: any } = await fx.tenant.api.get(`/calls?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
        expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
        pageSizes.push(reply.body.data.length);
        seen.push(...ids(reply));
        cursor = reply.body.next_cursor;
      } while (cursor !== null && pageSizes.length < 10);
      expect(pageSizes).to.deep.equal([2, 2, 1]);
      expect(seen).to.deep.equal(byStart(calls));
    });

    it('then device_id, direction, phone and from/to narrow the list, and combine', async () => {
      const { first, second, calls } = await scene();
      const [c3, c1, c4, , c2] = calls.map((call) => call.id);
      expect(ids(await fx.tenant.api.get(`/calls?device_id=${second.id}`))).to.deep.equal([c4, c2]);
      expect(ids(await fx.tenant.api.get('/calls?direction=missed'))).to.deep.equal([c2, c1]);
      // Normalized as the reports are: written nationally with 00, or with spaces, it is the same number.
      expect(ids(await fx.tenant.api.get(`/calls?phone=${encodeURIComponent('0079005550001')}`))).to.deep.equal([c4, c3, c2]);
      expect(ids(await fx.tenant.api.get(`/calls?phone=${encodeURIComponent('+7 900 555 00 01')}&direction=missed`))).to.deep.equal([c2]);
      expect(ids(await fx.tenant.api.get(`/calls?from=${encodeURIComponent(at(1))}&to=${encodeURIComponent(at(3))}`))).to.deep.equal([c2, c1]);
      expect(ids(await fx.tenant.api.get(`/calls?device_id=${first.id}&from=${encodeURIComponent(at(1))}`))).to.deep.equal([c3, c1]);
      expect(ids(await fx.tenant.api.get(`/calls?phone=Unknown`))).to.deep.equal([]);
    });

    it('then a bad filter or cursor is a 400, never a 500', async () => {
      await scene();
      for (const query of ['direction=forwarded', 'from=yesterday', 'to=2026-13-01', 'device_id=abc', 'limit=0', 'limit=101', 'cursor=not-a-cursor', 'phone=']) {
        expectError(await fx.tenant.api.get(`/calls?${query}`), 400);
      }
      // A parameter the route does not declare is ignored on a GET (a cache-buster, say).
      expect((await fx.tenant.api.get('/calls?colour=red')).status).to.equal(200);
    });
  });

  describe('when a call has a recording', () => {
    it('then GET /calls and GET /calls/{id} show its metadata and download path, never the audio', async () => {
      const device = await phone();
      await report(device);
      const [row] = await storedRows();
      const recording = await withRecording(row!.id);
      const one = await fx.tenant.api.get(`/calls/${row!.id}`);
      expect(Object.keys(one.body.recording)).to.have.members(RECORDING_KEYS);
      expect(one.body.recording).to.deep.equal({
        size_bytes: 1234,
        content_type: 'audio/wav',
        duration_seconds: 1.5,
        sha256: recording.sha256,
        created_at: new Date(T0).toISOString(),
        download_path: `/api/ext/v1/calls/${row!.id}/recording`,
      });
      expect((await fx.tenant.api.get('/calls')).body.data[0]).to.deep.equal(one.body);
    });
  });

  describe('when DELETE /calls/{id} is called', () => {
    it('then it answers 204, the call and its recording are gone, and the deletion listeners hear both', async () => {
      const deletions = hearDeletions();
      const device = await phone();
      await report(device);
      const kept = await report(device);
      const [row] = (await storedRows()).filter((call) => call.device_call_id !== kept.id);
      const recording = await withRecording(row!.id);
      const reply = await fx.tenant.api.delete(`/calls/${row!.id}`);
      expect(reply.status, JSON.stringify(reply.body)).to.equal(204);
      expect(deletions.heard).to.have.length(1);
      expect(deletions.heard[0]!.call).to.include({ id: row!.id, device_id: device.id });
      expect(deletions.heard[0]!.recording).to.include({ call_id: row!.id, storage_key: recording.storage_key });
      expectError(await fx.tenant.api.get(`/calls/${row!.id}`), 404, 'call_not_found');
      expect(await recordingRowsOf(fx, row!.id)).to.deep.equal([]);
      expect((await storedRows()).map((call) => call.device_call_id)).to.deep.equal([kept.id]);
      expectError(await fx.tenant.api.delete(`/calls/${row!.id}`), 404, 'call_not_found');
      expect(deletions.heard).to.have.length(1);
    });

    it('then an unknown id is 404 and a malformed one 400', async () => {
      expectError(await fx.tenant.api.delete(`/calls/${UNKNOWN_ID}`), 404, 'call_not_found');
      expectError(await fx.tenant.api.get(`/calls/${UNKNOWN_ID}`), 404, 'call_not_found');
      for (const id of MALFORMED_IDS) {
        expectError(await fx.tenant.api.get(`/calls/${encodeURIComponent(id)}`), 400);
        expectError(await fx.tenant.api.delete(`/calls/${encodeURIComponent(id)}`), 400);
      }
    });
  });

  describe('when the phone is deleted', () => {
    it('then its calls and their recordings are deleted with it (listeners told), and other phones\' calls stay', async () => {
      const deletions = hearDeletions();
      const gone = await phone();
      const stays = await phone();
      await report(gone);
      await report(gone, { direction: 'missed' });
      const kept = await report(stays);
      const [withAudio] = (await storedRows()).filter((call) => call.device_id === gone.id);
      await withRecording(withAudio!.id);
      const heardBoth = (async () => {
        while (deletions.heard.length < 2) await deletions.next();
      })();
      expect((await fx.tenant.api.delete(`/devices/${gone.id}`)).status).to.equal(204);
      await heardBoth;
      expect(deletions.heard.map((deleted) => deleted.call.device_id)).to.deep.equal([gone.id, gone.id]);
      expect(deletions.heard.find((deleted) => deleted.call.id === withAudio!.id)?.recording?.call_id).to.equal(withAudio!.id);
      expect((await fx.tenant.api.get('/calls')).body.data.map((call: { device_call_id: string }) => call.device_call_id)).to.deep.equal([kept.id]);
    });
  });

  describe('tenancy: another account', () => {
    it('never sees, reads or deletes this account\'s calls, not even by naming the phone', async () => {
      const device = await phone();
      await report(device);
      const [row] = await storedRows();
      const other = await fx.newTenant();
      expect((await other.api.get('/calls')).body).to.deep.equal({ data: [], next_cursor: null });
      expect((await other.api.get(`/calls?device_id=${device.id}`)).body).to.deep.equal({ data: [], next_cursor: null });
      expectError(await other.api.get(`/calls/${row!.id}`), 404, 'call_not_found');
      expectError(await other.api.delete(`/calls/${row!.id}`), 404, 'call_not_found');
      expect(await storedRows()).to.have.length(1);
    });
  });

  describe('permissions', () => {
    it('GET needs calls:read and DELETE needs calls:delete', async () => {
      const device = await phone();
      await report(device);
      const [row] = await storedRows();
      const others = PERMISSIONS.filter((permission) => !permission.startsWith('calls:'));
      const without = await fx.keyWith([...others]);
      expectError(await without.get('/calls'), 403, 'forbidden');
      expectError(await without.get(`/calls/${row!.id}`), 403, 'forbidden');
      expectError(await without.delete(`/calls/${row!.id}`), 403, 'forbidden');
      const reader = await fx.keyWith(['calls:read']);
      expect((await reader.get('/calls')).body.data).to.have.length(1);
      expect((await reader.get(`/calls/${row!.id}`)).status).to.equal(200);
      expectError(await reader.delete(`/calls/${row!.id}`), 403, 'forbidden');
      const deleter = await fx.keyWith(['calls:delete']);
      expectError(await deleter.get('/calls'), 403, 'forbidden');
      expect((await deleter.delete(`/calls/${row!.id}`)).status).to.equal(204);
    });

    it('migration 012 gives calls:read and calls:delete to keys that held every older permission, once, and leaves chosen sets alone', async () => {
      const { apiKeys, db } = fx.gateway.services;
      const everything = await apiKeys.create(fx.tenant.accountId, ALL_BEFORE as Permission[], 'old all');
      const chosen = await apiKeys.create(fx.tenant.accountId, ['sms:read', 'users:manage'], 'chosen');
      const permissionsOf = async (id: string) => (await apiKeys.get(fx.tenant.accountId, id)).permissions;
      await grantCallPermissions(db);
      await grantCallPermissions(db);
      expect(await permissionsOf(everything.row.id)).to.have.members([...ALL_BEFORE, 'calls:read', 'calls:delete']);
      expect(await permissionsOf(chosen.row.id)).to.have.members(['sms:read', 'users:manage']);
      // Newer permissions, with the migrations that gave them to such keys (sms:send_transactional is never given).
      const newer = ['sms:send_transactional', 'suppressions:read', 'suppressions:write', 'inbound_rules:read', 'inbound_rules:write', 'upstreams:read', 'upstreams:write'];
      expect([...ALL_BEFORE, 'calls:read', 'calls:delete', ...newer]).to.have.members([...PERMISSIONS]);
    });
  });
});
