// MMS end to end: media uploaded over HTTP (type checked by the bytes, size limits refused while
// reading, never held whole), an MMS sent through POST /mms to a real MQTT phone (the simulated
// device agent) that fetches its parts over HTTP with its device credentials, whole or by Range,
// and reports sent and delivered; MMS received by a phone, reported on MQTT and uploaded part by
// part, announced by a signed mms.received webhook once complete, stored once however often the
// phone reports it.
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { useGateway } from '../support/use-gateway.ts';
import { nextEvent } from '../support/devices.ts';
import { expectIsoTimestamp, UNKNOWN_ID } from '../support/expectations.ts';
import { createWebhook, expectEnvelope, verified, webhookConfig } from '../support/webhooks.ts';
import { eventually } from '../support/eventually.ts';
import type { Received } from '../support/receiver.ts';
import type { SendTask } from '../../src/modules/delivery/task.ts';
import { topic } from '../support/mqtt.ts';
import { basic, download, jpeg, mmsConfig, png, sha256, uploadMedia, VCARD } from './mms-fixture.ts';
import { smsRowsOf, mmsRowsOf, mediaRowsOf, incomingMmsRowsOf, incomingMmsPartRowsOf } from '../support/test-data.ts';

const PART_MAX = 600 * 1024;
const MESSAGE_MAX = 1024 * 1024;
const MEDIA_KEYS = ['id', 'content_type', 'size', 'sha256', 'created_at', 'download_path'];
const ofType = (type: string) => (request: Received) => request.json?.type === type;

describe('mms', () => {
  const fx = useGateway({ config: mmsConfig(() => fx, { maxPartBytes: PART_MAX, maxMessageBytes: MESSAGE_MAX }, { webhooks: webhookConfig() }) });
  const bearer = () => `Bearer ${fx.tenant.key}`;
  const mediaRows = () => mediaRowsOf(fx, fx.tenant.accountId);

  async function upload(bytes: Buffer, type: string): Promise<any> {
    const reply = await uploadMedia(fx, fx.tenant.key!, bytes, type);
    expect(reply.status, JSON.stringify(reply.body)).to.equal(201);
    return reply.body;
  }

  describe('media upload', () => {
    it('stores the bytes under the type they are, answers 201 with their size and SHA-256, and serves them whole and by Range', async () => {
      const image = jpeg(300 * 1024);
      const media = await upload(image, 'image/jpeg');
      expect(Object.keys(media).sort()).to.deep.equal([...MEDIA_KEYS].sort());
      expect(media).to.include({ content_type: 'image/jpeg', size: image.length, sha256: sha256(image), download_path: `/api/ext/v1/media/${media.id}` });
      expectIsoTimestamp(media.created_at, 'created_at');

      const whole = await download(fx.baseUrl + media.download_path, bearer());
      expect(whole.status).to.equal(200);
      expect(whole.headers.get('content-type')).to.equal('image/jpeg');
      expect(whole.bytes.equals(image)).to.equal(true);
      const part = await download(fx.baseUrl + media.download_path, bearer(), { range: 'bytes=1000-1999' });
      expect(part.status).to.equal(206);
      expect(part.headers.get('content-range')).to.equal(`bytes 1000-1999/${image.length}`);
      expect(part.bytes.equals(image.subarray(1000, 2000))).to.equal(true);
      const past = await download(fx.baseUrl + media.download_path, bearer(), { range: `bytes=${image.length}-` });
      expect(past.status).to.equal(416);

      // Text types are checked as text: a vCard must be one.
      expect((await upload(VCARD, 'text/x-vcard')).content_type).to.equal('text/vcard');
      expect((await upload(Buffer.from('hello, world'), 'text/plain; charset=utf-8')).content_type).to.equal('text/plain');

      const other = await fx.newTenant();
      expect((await download(fx.baseUrl + media.download_path, `Bearer ${other.key}`)).status, 'another account').to.equal(404);
    });

    it('refuses bytes that are not the declared type, and types MMS does not carry, with 415 and keeps nothing', async () => {
      const cases: [Buffer, string][] = [
        [png(2000), 'image/jpeg'],
        [Buffer.from('just text, not an image'), 'image/png'],
        [jpeg(2000), 'text/plain'],
        [Buffer.from('not a card'), 'text/vcard'],
        [Buffer.from('PK\x03\x04 a zip file'), 'application/zip'],
        [jpeg(2000), ''],
      ];
      for (const [bytes, type] of cases) {
        const reply = await uploadMedia(fx, fx.tenant.key!, bytes, type);
        expect(reply.status, `${type}: ${JSON.stringify(reply.body)}`).to.equal(415);
        expect(reply.body.error.code).to.equal('media_type_refused');
      }
      expect(await mediaRows()).to.deep.equal([]);
      // A key that may only read cannot upload.
      const reader = await fx.keyWith(['sms:read']);
      expect((await uploadMedia(fx, reader.key!, jpeg(2000), 'image/jpeg')).status).to.equal(403);
    });

    it('refuses an oversized body with 413 from its Content-Length or while streaming, closes the connection, and holds no memory', async function () {
      this.timeout(60_000);
      const total = 100 * 1024 * 1024;
      const chunks = async function* (counter?: { sent: number }) {
        yield jpeg(64 * 1024);
        const filler = Buffer.alloc(64 * 1024, 9);
        for (let sent = 64 * 1024; sent < total; sent += filler.length) {
          if (counter) counter.sent += filler.length;
          yield filler;
        }
      };
      global.gc?.();
      const before = process.memoryUsage().rss;
      const declared = await uploadMedia(fx, fx.tenant.key!, chunks(), 'image/jpeg', { 'content-length': String(total) });
      expect(declared.status).to.equal(413);
      expect(declared.body.error.code).to.equal('payload_too_large');
      expect(declared.headers.connection).to.equal('close');

      const counter = { sent: 0 };
      const streamed = await uploadMedia(fx, fx.tenant.key!, chunks(counter), 'image/jpeg');
      expect(streamed.status).to.equal(413);
      expect(streamed.body.error.message).to.include(String(PART_MAX));
      expect(streamed.headers.connection).to.equal('close');
      // The gateway stopped reading near the limit: the client could not push 100 MB into it.
      expect(counter.sent).to.be.below(30 * 1024 * 1024);
      const grown = process.memoryUsage().rss - before;
      expect(grown, `RSS grew by ${Math.round(grown / 1e6)} MB`).to.be.below(60 * 1024 * 1024);
      expect(await mediaRows()).to.deep.equal([]);

      // The gateway is fine: the next upload is stored.
      await upload(jpeg(1000), 'image/jpeg');
    });
  });

  describe('sending', () => {
    it('sends an MMS to a real MQTT phone, which fetches every part over HTTP (by Range) and reports sent and delivered', async () => {
      const receiver = await fx.receiver();
      const { secret } = await createWebhook(fx.tenant, receiver.url, ['sms.status_changed']);
      const phone = await fx.connectDevice({ apiUrl: fx.baseUrl, mmsFetch: 'ranges' });
      const images = [jpeg(300 * 1024, 1), jpeg(200 * 1024, 2)];
      const media = [await upload(images[0]!, 'image/jpeg'), await upload(images[1]!, 'image/jpeg'), await upload(VCARD, 'text/vcard')];

      const taskArrived = nextEvent(phone, 'task');
      const delivered = nextEvent(phone, 'report', (_id, status) => status === 'delivered', 10_000);
      const created = await fx.tenant.api.post('/mms', { phone: '+79161234567', subject: 'Holiday', message: 'Look!', media_ids: media.map((m) => m.id) });
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      expect(created.body).to.include({ kind: 'mms', phone: '+79161234567', message: 'Look!', subject: 'Holiday', status: 'pending' });
      expect(created.body.recipients).to.deep.equal(['+79161234567']);
      expect(created.body.parts).to.deep.equal(
        media.map((m) => ({ media_id: m.id, content_type: m.content_type, size: m.size, download_path: m.download_path })),
      );

      const [task] = (await taskArrived) as [SendTask, boolean];
      expect(task).to.include({ sms_id: created.body.id, kind: 'mms', subject: 'Holiday', message: 'Look!' });
      expect(task.recipients).to.deep.equal(['+79161234567']);
      expect(task.parts).to.deep.equal(media.map((m) => ({ id: m.id, content_type: m.content_type, size: m.size, path: `/api/device/v1/media/${m.id}` })));

      await delivered;
      const fetched = phone.mmsFetched.get(created.body.id)!;
      expect(fetched.map((part) => part.sha256)).to.deep.equal(media.map((m) => m.sha256));
      expect(fetched.every((part) => part.statuses.join() === '206,206'), JSON.stringify(fetched)).to.equal(true);
      expect(phone.sendCount.get(created.body.id)).to.equal(1);

      const events = await receiver.waitFor(3, ofType('sms.status_changed'));
      const statuses = events.map((request) => verified(secret, request).data.sms.internal_status);
      expect(statuses).to.deep.equal(['processing', 'sent', 'delivered']);
      const read = await fx.tenant.api.get(`/mms/${created.body.id}`);
      expect(read.status).to.equal(200);
      expect(read.body).to.include({ status: 'delivered', kind: 'mms', subject: 'Holiday' });
      const listed = (await fx.tenant.api.get('/sms')).body.data as { id: string; kind?: string }[];
      expect(listed.find((sms) => sms.id === created.body.id)?.kind).to.equal('mms');
    });

    it('sends a group MMS as one message with every recipient, fetched whole; a plain SMS stays as it was', async function () {
      // Under a loaded CI (four suites on two cores, PGlite's one connection) a task has been seen
      // to take over 5 s: the waits are longer than the default, and so is the test.
      this.timeout(45_000);
      const phone = await fx.connectDevice({ apiUrl: fx.baseUrl });
      const media = await upload(jpeg(50_000), 'image/jpeg');
      const taskArrived = nextEvent(phone, 'task', undefined, 15_000);
      const sent = nextEvent(phone, 'report', (_id, status) => status === 'sent', 10_000);
      const created = await fx.tenant.api.post('/mms', { phones: ['+79161234567', '+79161234568', '+79161234567'], media_ids: [media.id] });
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      expect(created.body.recipients).to.deep.equal(['+79161234567', '+79161234568']);
      expect((await smsRowsOf(fx, fx.tenant.accountId)).filter((row) => row.kind === 'mms')).to.have.length(1);
      const [task] = (await taskArrived) as [SendTask, boolean];
      expect(task.recipients).to.deep.equal(['+79161234567', '+79161234568']);
      await sent;
      expect(phone.mmsFetched.get(created.body.id)!.map((part) => part.statuses)).to.deep.equal([[200]]);

      const sms = await fx.tenant.api.post('/sms', { phone: '+79161234569', message: 'plain' });
      expect(sms.body).not.to.have.property('kind');
      const [plainTask] = (await nextEvent(phone, 'task', undefined, 15_000)) as [SendTask, boolean];
      expect(plainTask).not.to.have.property('kind');
      expect(plainTask).not.to.have.property('parts');
    });

    it('refuses another account\'s media (404), 11 parts (400), too many bytes together (413), phone with phones or neither (400); details name list items dotted', async () => {
      const other = await fx.newTenant();
      const theirs = await uploadMedia(fx, other.key!, jpeg(1000), 'image/jpeg');
      const mine = await upload(jpeg(1000), 'image/jpeg');
      const foreign = await fx.tenant.api.post('/mms', { phone: '+79161234567', media_ids: [mine.id, theirs.body.id] });
      expect(foreign.status).to.equal(404);
      expect(foreign.body.error.code).to.equal('media_not_found');
      // Dotted, as every other detail names an item of a list (messages.3.phone).
      expect(foreign.body.error.details).to.deep.equal([{ field: 'media_ids.1', in: 'body', message: 'media_ids.1 names no media of this account' }]);
      expect((await fx.tenant.api.post('/mms', { phone: '+79161234567', media_ids: [UNKNOWN_ID] })).status).to.equal(404);

      const eleven = await fx.tenant.api.post('/mms', { phone: '+79161234567', media_ids: Array.from({ length: 11 }, () => mine.id) });
      expect(eleven.status).to.equal(400);
      expect(eleven.body.error.code).to.equal('validation_failed');

      const big = [await upload(jpeg(500 * 1024, 1), 'image/jpeg'), await upload(jpeg(500 * 1024, 2), 'image/jpeg'), await upload(jpeg(100 * 1024, 3), 'image/jpeg')];
      const tooLarge = await fx.tenant.api.post('/mms', { phone: '+79161234567', media_ids: big.map((m) => m.id) });
      expect(tooLarge.status).to.equal(413);
      expect(tooLarge.body.error.code).to.equal('mms_too_large');

      const both = await fx.tenant.api.post('/mms', { phone: '+79161234567', phones: ['+79161234568'], media_ids: [mine.id] });
      expect(both.status).to.equal(400);
      const neither = await fx.tenant.api.post('/mms', { media_ids: [mine.id] });
      expect(neither.body.error.details).to.deep.equal([{ field: 'phone', in: 'body', message: 'phone or phones is required' }]);
      const badSecond = await fx.tenant.api.post('/mms', { phones: ['+79161234568', '12'], media_ids: [mine.id] });
      expect(badSecond.body.error.code).to.equal('invalid_phone');
      expect(badSecond.body.error.details.map((detail: { field: string }) => detail.field)).to.deep.equal(['phones.1']);
      expect(badSecond.body.error.details[0].message).to.match(/^phones\.1 must be a valid phone number/);
      expect(await smsRowsOf(fx, fx.tenant.accountId)).to.deep.equal([]);
    });

    it('with an Idempotency-Key, a repeat replays the first answer and creates no second MMS; cancel works as for an SMS', async () => {
      const media = await upload(jpeg(2000), 'image/jpeg');
      const body = { phone: '+79161234567', media_ids: [media.id], subject: 'once' };
      const key = { 'idempotency-key': randomUUID() };
      const first = await fx.tenant.api.request('POST', '/mms', body, key);
      const again = await fx.tenant.api.request('POST', '/mms', body, key);
      expect(first.status).to.equal(201);
      expect(again.status).to.equal(201);
      expect(again.body).to.deep.equal(first.body);
      expect(await mmsRowsOf(fx, first.body.id)).to.have.length(1);
      expect(await smsRowsOf(fx, fx.tenant.accountId)).to.have.length(1);
      expect((await fx.tenant.api.post(`/sms/${first.body.id}/cancel`)).status).to.equal(200);
      expect((await fx.tenant.api.get(`/mms/${first.body.id}`)).body).to.include({ status: 'failed_send', reason: 'cancelled' });
    });

    it('answers a phone fetching media of another account, or with wrong credentials, as not found / unauthorized', async () => {
      const other = await fx.newTenant();
      const theirs = (await uploadMedia(fx, other.key!, jpeg(1000), 'image/jpeg')).body;
      const { device, token } = await fx.registerDevice();
      const path = `${fx.baseUrl}/api/device/v1/media/${theirs.id}`;
      expect((await download(path, basic(device.id, token))).status).to.equal(404);
      expect((await download(path, basic(device.id, 'wrong-token'))).status).to.equal(401);
      const { device: theirPhone, token: theirToken } = await fx.registerDevice('their-phone', other);
      const fetched = await download(path, basic(theirPhone.id, theirToken), { range: 'bytes=0-9' });
      expect(fetched.status).to.equal(206);
      expect(fetched.bytes.length).to.equal(10);
    });
  });

  describe('receiving', () => {
    it('stores a reported MMS, takes its parts over HTTP and sends a signed mms.received once complete, once however often it is reported', async () => {
      const receiver = await fx.receiver();
      const { secret } = await createWebhook(fx.tenant, receiver.url, ['mms.received']);
      const phone = await fx.connectDevice({ apiUrl: fx.baseUrl });
      expect((await fx.tenant.api.patch(`/devices/${phone.id}/settings`, { forward_incoming_sms: true })).status).to.equal(200);
      const image = jpeg(120_000);
      const parts = [
        { id: 'img', contentType: 'image/jpeg', bytes: image },
        { id: 'card', contentType: 'text/x-vcard', bytes: VCARD },
      ];
      const id = randomUUID();
      // Reported first without uploads: nothing is sent until every part is in.
      const reported = await phone.receiveMms({ id, phone: '+79990001122', subject: 'Hi', message: 'from me', parts, upload: false });
      expect(reported.uploads).to.deep.equal([]);
      const listed = (await fx.tenant.api.get('/mms/incoming')).body.data;
      expect(listed).to.have.length(1);
      expect(listed[0]).to.include({ device_mms_id: id, phone: '+79990001122', subject: 'Hi', message: 'from me', complete: false });
      expect(listed[0].parts.map((part: any) => [part.id, part.content_type, part.uploaded])).to.deep.equal([
        ['img', 'image/jpeg', false],
        ['card', 'text/vcard', false],
      ]);

      // A mistyped part is refused; uploaded again while the MMS still awaits another part, the real
      // bytes replace the refusal (had the image come first, the MMS would have ended without the card).
      const wrong = await phone.receiveMms({ id, phone: '+79990001122', parts: [{ id: 'card', contentType: 'text/vcard', bytes: png(500) }].concat([]), upload: true });
      expect(wrong.uploads.map((u) => u.status)).to.deep.equal([415]);
      const again = await phone.receiveMms({ id, phone: '+79990001122', subject: 'Hi', message: 'from me', parts: [...parts].reverse() });
      expect(again.uploads.map((u) => u.status)).to.deep.equal([201, 201]);
      const [request] = await receiver.waitFor(1, ofType('mms.received'));
      const event = verified(secret, request!);
      expectEnvelope(event, 'mms.received', fx.tenant.accountId);
      const mms = event.data.mms;
      expect(mms).to.include({ device_id: phone.id, device_mms_id: id, phone: '+79990001122', subject: 'Hi', complete: true });
      expect(mms.parts.map((part: any) => [part.id, part.size, part.sha256])).to.deep.equal([
        ['img', image.length, sha256(image)],
        ['card', VCARD.length, sha256(VCARD)],
      ]);
      const got = await download(fx.baseUrl + mms.parts[0].download_path, bearer());
      expect(got.bytes.equals(image)).to.equal(true);
      expect(request!.body).not.to.include(image.subarray(100, 200).toString('base64'));

      // Reported and uploaded once more: one MMS, one webhook, the parts answered as stored.
      const third = await phone.receiveMms({ id, phone: '+79990001122', parts });
      expect(third.uploads.map((u) => u.status)).to.deep.equal([200, 200]);
      expect(await incomingMmsRowsOf(fx, phone.id)).to.have.length(1);
      const detail = await fx.tenant.api.get(`/mms/incoming/${mms.id}`);
      expect(detail.body).to.deep.equal(mms);
      await phone.receiveMms({ phone: '+79990003344', parts: [{ contentType: 'image/jpeg', bytes: jpeg(1000) }] });
      const all = await receiver.waitFor(2, ofType('mms.received'));
      expect(all.filter((each) => verified(secret, each).data.mms.device_mms_id === id)).to.have.length(1);
    });

    it('ignores reports that fail their checks (two parts with one id, an id unfit for a path, no parts list) and stores the valid one', async () => {
      const { device, token } = await fx.registerDevice();
      expect((await fx.tenant.api.patch(`/devices/${device.id}/settings`, { forward_incoming_sms: true })).status).to.equal(200);
      const client = await fx.clients.device(device.id, token);
      const report = (id: string, parts: unknown) => JSON.stringify({ id, phone: '+79990001122', received_at: new Date().toISOString(), parts });
      const part = (id: string) => ({ id, content_type: 'image/jpeg', size: 10 });
      for (const bad of [report('dup', [part('a'), part('a')]), report('a/b', [part('a')]), report('none', undefined), '{not json']) {
        await client.publish(topic(device.id, 'mms'), bad, { qos: 2 });
      }
      await client.publish(topic(device.id, 'mms'), report('good', [part('a'), { id: 'layout', content_type: 'application/smil', size: 300 }]), { qos: 2 });
      const rows = await incomingMmsRowsOf(fx, device.id);
      expect(rows.map((row: { device_mms_id: string }) => row.device_mms_id)).to.deep.equal(['good']);
      // The SMIL layout is no media: left out, so that the MMS can be completed.
      const parts = await incomingMmsPartRowsOf(fx, rows[0].id);
      expect(parts.map((row: { part_id: string }) => row.part_id)).to.deep.equal(['a']);
    });

    it('refuses part uploads for MMS never reported, parts not named, or past MMS_MAX_MESSAGE_BYTES; keeps nothing with forwarding off', async function () {
      this.timeout(30_000);
      const phone = await fx.connectDevice({ apiUrl: fx.baseUrl });
      expect((await fx.tenant.api.patch(`/devices/${phone.id}/settings`, { forward_incoming_sms: false })).status).to.equal(200);
      const off = await phone.receiveMms({ phone: '+79990001122', parts: [{ contentType: 'image/jpeg', bytes: jpeg(1000) }] });
      expect(off.uploads.map((u) => u.status), 'forward_incoming_sms off').to.deep.equal([404]);
      expect((await fx.tenant.api.patch(`/devices/${phone.id}/settings`, { forward_incoming_sms: true })).status).to.equal(200);
      const { id } = await phone.receiveMms({ phone: '+79990001122', parts: [{ id: 'a', contentType: 'image/jpeg', bytes: jpeg(1000) }], upload: false });
      const unnamed = await phone.receiveMms({ id, phone: '+79990001122', parts: [{ id: 'b', contentType: 'image/jpeg', bytes: jpeg(1000) }] });
      expect(unnamed.uploads[0]).to.deep.include({ status: 404 });
      expect((unnamed.uploads[0]!.body as any).error.code).to.equal('mms_part_not_expected');
      const huge = await phone.receiveMms({ id, phone: '+79990001122', parts: [{ id: 'a', contentType: 'image/jpeg', bytes: jpeg(MESSAGE_MAX + 1) }] });
      expect(huge.uploads.map((u) => u.status)).to.deep.equal([413]);
      await eventually('no media kept', async () => ((await mediaRows()).length === 0 ? true : undefined));
    });
  });
});
