// Phones ride out a database outage: reports sent while the database is unreachable are held,
// not refused, so the phones keep their connections; once it is back every report commits,
// every SMS reaches its final status, and none went to two phones or was sent twice. A phone
// refused at CONNECT while the database is down (CONNACK 3) connects once it is back. A phone
// that disconnects meanwhile has its disconnect recorded as its last-seen time once it is back.
// PostgreSQL only: the outage is a cut TCP link to the server (the embedded database has no
// connection to cut).
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { SimulatedDevice } from '../../src/simulator/device.ts';
import { deviceTopic } from '../../broker/topics.ts';
import { nextEvent } from '../support/devices.ts';
import { TaskPhone, UNPACED } from '../support/task-phone.ts';
import { eventually } from '../support/eventually.ts';
import { onlyOnPostgres } from '../support/postgres-only.ts';
import { useDatabaseOutage } from '../support/outage.ts';

const PHONES = 3;
const SMS_PER_PHONE = 3;

/** The start of the line the last-seen writer logs when a write meets the outage. */
const OUTAGE_LINE = 'database unreachable: last-seen times';

describe('device channel: database outage', function () {
  // The outage is a cut TCP link to the server: the embedded database has no connection to cut.
  onlyOnPostgres();
  this.timeout(30_000);
  const outage = useDatabaseOutage({ logLevel: 'warn' });

  it('when the database goes away while phones report, then their connections stay open, and once it is back every SMS is delivered, each by one phone once', async () => {
    const phones: TaskPhone[] = [];
    for (let i = 0; i < PHONES; i++) phones.push(await TaskPhone.connect(outage.gateway, outage.tenant, UNPACED));
    // Anything that would mean the gateway closed a phone's connection.
    const lost: string[] = [];
    for (const phone of phones) for (const event of ['close', 'offline', 'reconnect', 'disconnect'] as const) phone.client.on(event, () => lost.push(`${phone.id} ${event}`));
    // Every task message each phone gets, to count how often each SMS was handed out.
    const handedOut = new Map<string, Set<string>>();
    for (const phone of phones) {
      phone.client.on('message', (topic, payload) => {
        if (topic !== deviceTopic(phone.id, 'tasks')) return;
        const { sms_id: smsId } = JSON.parse(payload.toString()) as { sms_id: string };
        handedOut.set(smsId, (handedOut.get(smsId) ?? new Set()).add(phone.id));
      });
    }

    const ids: string[] = [];
    for (const phone of phones) {
      for (let i = 0; i < SMS_PER_PHONE; i++) {
        const created = await outage.tenant.api.post('/sms', { phone: '+79161234567', message: `outage ${i}`, device_id: phone.id });
        expect(created.status, JSON.stringify(created.body)).to.equal(201);
        ids.push(created.body.id);
      }
    }
    await Promise.all(phones.map((phone) => phone.until(SMS_PER_PHONE)));
    // Acknowledged before the outage: the SMS are the phones' to send.
    for (const phone of phones) for (const task of phone.tasks) await phone.report(task.sms_id, 'processing');

    await outage.link.cut();
    const ingestor = outage.gateway.services.statusIngestor;
    const heldOnce = nextEvent(ingestor, 'held');
    // Sent during the outage: held by the gateway (no PUBREC) until the database is back.
    const sent = phones.flatMap((phone) => phone.tasks.map((task) => phone.report(task.sms_id, 'sent')));
    let sentSettled = false;
    void Promise.allSettled(sent).then(() => (sentSettled = true));
    await heldOnce;
    // A retry failed too: the reports have been held through more than one attempt.
    await nextEvent(ingestor, 'held', () => true, 10_000);
    expect(sentSettled, 'reports completed while the database was down').to.equal(false);
    expect(lost, 'connections lost during the outage').to.deep.equal([]);

    await outage.link.restore();
    await Promise.all(sent);
    for (const phone of phones) for (const task of phone.tasks) await phone.report(task.sms_id, 'delivered');

    expect(lost, 'connections lost after the outage').to.deep.equal([]);
    for (const id of ids) {
      const read = await outage.tenant.api.get(`/sms/${id}`);
      expect(read.body.status, id).to.equal('delivered');
      const statuses = read.body.history.map((entry: { internal_status: string }) => entry.internal_status);
      expect(statuses, id).to.deep.equal(['pending', 'processing', 'sent', 'delivered']);
      expect([...(handedOut.get(id) ?? [])], `phones given ${id}`).to.have.length(1);
    }
  });

  it('when a phone sends a heartbeat during the outage, then it is dropped without closing the connection', async () => {
    const phone = await TaskPhone.connect(outage.gateway, outage.tenant);
    const lost: string[] = [];
    for (const event of ['close', 'offline', 'reconnect'] as const) phone.client.on(event, () => lost.push(event));
    await outage.link.cut();
    const heartbeat = { battery_level: 55, is_charging: false, sim_cards: [], name: 'Pixel 7' };
    // QoS 2: completes once the gateway has handled it (dropped, the database being away).
    await phone.client.publishAsync(deviceTopic(phone.id, 'heartbeat'), JSON.stringify(heartbeat), { qos: 2 });
    expect(lost).to.deep.equal([]);
    await outage.link.restore();
    await phone.client.publishAsync(deviceTopic(phone.id, 'heartbeat'), JSON.stringify(heartbeat), { qos: 2 });
    expect((await outage.tenant.api.get(`/devices/${phone.id}`)).body).to.include({ battery_level: 55, name: 'Pixel 7' });
    expect(lost).to.deep.equal([]);
    await phone.stop();
  });

  it('when a phone forwards a received SMS during the outage, then it is held, not refused, and stored once the database is back', async () => {
    const phone = await TaskPhone.connect(outage.gateway, outage.tenant, { forward_incoming_sms: true });
    const witness = await TaskPhone.connect(outage.gateway, outage.tenant);
    const lost: string[] = [];
    for (const event of ['close', 'offline', 'reconnect'] as const) phone.client.on(event, () => lost.push(event));
    await outage.link.cut();
    const sms = { id: 'device-msg-1', phone: '+79161234567', message: 'received while the database was away', received_at: new Date().toISOString() };
    // QoS 2: completes only once the gateway has stored it.
    let stored = false;
    const forwarded = phone.client.publishAsync(deviceTopic(phone.id, 'incoming'), JSON.stringify(sms), { qos: 2 }).then(() => (stored = true));
    // Something to await that shows the gateway working through the outage meanwhile: a status
    // report sent after the SMS, by another phone, held by an attempt and by its retry.
    let held = 0;
    const heldTwice = nextEvent(outage.gateway.services.statusIngestor, 'held', () => ++held === 2, 10_000);
    const report = witness.report(randomUUID(), 'processing');
    await heldTwice;
    expect(stored, 'stored while the database was away').to.equal(false);
    expect(lost, 'connection lost during the outage').to.deep.equal([]);
    await outage.link.restore();
    await Promise.all([forwarded, report]);
    const listed = await outage.tenant.api.get('/incoming');
    expect(listed.body.data.map((row: { message: string }) => row.message)).to.deep.equal([sms.message]);
    expect(lost).to.deep.equal([]);
    await Promise.all([phone.stop(), witness.stop()]);
  });

  it('when a simulated phone is refused at CONNECT (code 3) while the database is down, then it keeps trying with backoff and connects once it is back', async () => {
    const { device, token } = await outage.gateway.services.devices.register(outage.tenant.accountId, 'comes back');
    await outage.link.cut();
    const phone = new SimulatedDevice({ brokerUrl: `mqtt://127.0.0.1:${outage.gateway.mqttPort}`, deviceId: device.id, token, reconnectPeriodMs: 50, maxReconnectPeriodMs: 400 });
    const refused = nextEvent(phone, 'refused');
    const retried = nextEvent(phone, 'reconnecting', () => phone.reconnects >= 2);
    const connected = phone.connect();
    try {
      const [code] = await refused;
      expect(code).to.equal(3);
      // Refused again after its first retry: it kept trying rather than giving up.
      await retried;
      expect(phone.connected).to.equal(false);
      await outage.link.restore();
      await connected;
      expect(phone.connected).to.equal(true);
      expect(outage.gateway.services.devices.isOnline(device.id)).to.equal(true);
    } finally {
      await phone.stop();
    }
  });

  it('when a phone disconnects while the database is unreachable, then its last-seen time is the disconnect once the database is back', async () => {
    const phone = await TaskPhone.connect(outage.gateway, outage.tenant);
    const lastSeen = async () => (await outage.tenant.api.get(`/devices/${phone.id}`)).body.last_seen_at as string | null;
    const connectedSeen = await eventually('the connect recorded', async () => (await lastSeen()) ?? undefined);

    await outage.link.cut();
    const disconnectedAt = new Date();
    phone.kill();
    // The writer met the outage: its first write of the disconnect failed.
    await outage.log.until(OUTAGE_LINE);
    await outage.link.restore();

    const recorded = await eventually('the disconnect recorded', async () => {
      const seen = await lastSeen();
      return seen !== null && seen !== connectedSeen ? seen : undefined;
    }, 10_000);
    expect(new Date(recorded).getTime()).to.be.at.least(disconnectedAt.getTime());
  });
});
