// GET /api/ext/v1/stats/devices, the device report: per device and per SIM, the SMS handed to it
// that ended in the range (sent, failed_send, delivered, undelivered, delivery ratio), the time
// from hand-out to sent and to delivered (median, 95th percentile), and the canaries it sent
// (ended, passed, pass rate); as JSON, or CSV. Real broker, real MQTT phones reporting statuses
// and SIM slots, time moved by the test (ManualClock) so the timings are exact. Canary SMS are
// counted in the canary figures only, here and on the dashboard's summary.
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { ManualClock } from '../../src/common/clock.ts';
import { deviceTopic } from '../../broker/topics.ts';
import { useGateway } from '../support/use-gateway.ts';
import type { TaskPhone } from '../support/task-phone.ts';
import { expectError } from '../support/expectations.ts';
import { degradeSim, healthySim, insertCanaryProbes, updateSms } from '../support/test-data.ts';
import { userSession } from '../support/session-client.ts';

const T0 = Date.parse('2026-11-22T10:00:00.000Z');
const NO_LIMITS = { per_minute: null, per_hour: null, per_day: null };
const RANGE = `from=${new Date(T0 - 3_600_000).toISOString()}&to=${new Date(T0 + 3_600_000).toISOString()}`;

describe('extended API: device report (stats per device and SIM)', () => {
  const clock = new ManualClock(T0);
  const fx = useGateway({ clock });

  beforeEach(() => clock.set(T0));

  /** A phone reporting these SIM slots, connected and online, with pacing lifted. */
  async function phone(slots: number[]): Promise<TaskPhone> {
    const connected = await fx.taskPhone({ send_window: 20, limits: NO_LIMITS });
    const cards = slots.map((index) => ({ index, name_operator: `Operator ${index}` }));
    await connected.client.publishAsync(deviceTopic(connected.id, 'heartbeat'), JSON.stringify({ battery_level: 80, is_charging: false, sim_cards: cards }), { qos: 2 });
    return connected;
  }

  async function sendThrough(device: TaskPhone, text = 'count me'): Promise<string> {
    const created = await fx.tenant.api.post('/sms', { phone: '+79161234567', message: text, device_id: device.id });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    return created.body.id;
  }

  /** Test setup: a canary probe of the fleet-health rounds, as its module writes them. */
  async function probe(sender: TaskPhone, senderSim: number, receiver: TaskPhone, result: 'pending' | 'passed' | 'failed', createdAt = T0): Promise<void> {
    await insertCanaryProbes(fx, [{
      id: randomUUID(),
      account_id: fx.tenant.accountId,
      round_id: randomUUID(),
      sms_id: randomUUID(),
      round_number: 1,
      sender_device_id: sender.id,
      sender_sim: senderSim,
      receiver_device_id: receiver.id,
      receiver_sim: 0,
      code: randomUUID().slice(0, 8),
      created_at: new Date(createdAt),
      deadline_at: new Date(createdAt + 300_000),
      result,
      ended_at: result === 'pending' ? null : new Date(createdAt + 20_000),
      round_trip_ms: result === 'passed' ? 20_000 : null,
    }]);
  }

  /**
   * Phone A (SIMs 0, 1): s1 sent from SIM 0 after 2 s, delivered after 5 s; s2 sent from SIM 1
   * after 4 s, undelivered; s3 failed on SIM 0; a canary SMS sent from SIM 0 (not counted as
   * sent); one handed out and cancelled (not counted as failed). Phone B (SIM 0): s4 sent after 8 s. Canaries: A SIM 0 one passed, one failed; A SIM 1
   * one passed, one pending; B one passed; A one more passed 8 days before (out of range).
   */
  async function traffic(): Promise<{ a: TaskPhone; b: TaskPhone }> {
    const a = await phone([0, 1]);
    const b = await phone([0]);
    const [s1, s2, s3, canary] = [await sendThrough(a), await sendThrough(a), await sendThrough(a), await sendThrough(a, 'canary 1234')];
    const s4 = await sendThrough(b);
    const cancelled = await sendThrough(a);
    await a.until(5);
    // Handed out, then cancelled by its client: failed_send, but no failure of the phone's.
    expect((await fx.tenant.api.post(`/sms/${cancelled}/cancel`)).status).to.equal(200);
    await b.until(1);
    for (const id of [s1, s2, s3, canary]) await a.report(id, 'processing');
    await b.report(s4, 'processing');
    clock.advance(2_000);
    await a.reportWith(s1, 'sent', { sim_slot: 0 });
    await a.reportWith(canary, 'sent', { sim_slot: 0 });
    await a.reportWith(s3, 'failed_send', { error: 'radio off', sim_slot: 0 });
    clock.advance(2_000);
    await a.reportWith(s2, 'sent', { sim_slot: 1 });
    clock.advance(1_000);
    await a.report(s1, 'delivered');
    clock.advance(3_000);
    await a.report(s2, 'undelivered');
    await b.reportWith(s4, 'sent', { sim_slot: 0 });
    // The fleet-health rounds write their SMS with kind canary; this one stands for one.
    await updateSms(fx, canary, { kind: 'canary' });

    await probe(a, 0, b, 'passed');
    await probe(a, 0, b, 'failed');
    await probe(a, 1, b, 'passed');
    await probe(a, 1, b, 'pending');
    await probe(b, 0, a, 'passed');
    await probe(a, 0, b, 'passed', T0 - 8 * 86_400_000);
    return { a, b };
  }

  const zero = {
    sent: 0,
    failed_send: 0,
    delivered: 0,
    undelivered: 0,
    delivery_ratio: null,
    to_sent_median_ms: null,
    to_sent_p95_ms: null,
    to_delivered_median_ms: null,
    to_delivered_p95_ms: null,
    canary_ended: 0,
    canary_passed: 0,
    canary_pass_rate: null,
  };

  it('counts each device and SIM from the statuses its phone reported, times them from hand-out, and counts canaries apart', async () => {
    const { a, b } = await traffic();
    const { device: idle } = await fx.registerDevice('idle');
    const { device: gone } = await fx.registerDevice('gone');
    expect((await fx.tenant.api.delete(`/devices/${gone.id}`)).status).to.equal(204);

    const reply = await fx.tenant.api.get(`/stats/devices?${RANGE}`);
    expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
    expect(reply.body.from).to.equal('2026-11-22T09:00:00.000Z');
    expect(reply.body.to).to.equal('2026-11-22T11:00:00.000Z');
    const byId = new Map(reply.body.devices.map((device: { device_id: string }) => [device.device_id, device]));
    expect([...byId.keys()], 'live devices, a deleted one without figures left out').to.have.members([a.id, b.id, idle.id]);

    expect(byId.get(a.id)).to.deep.include({
      deleted: false,
      sent: 2,
      failed_send: 1,
      delivered: 1,
      undelivered: 1,
      delivery_ratio: 0.5,
      to_sent_median_ms: 3_000,
      to_sent_p95_ms: 3_900,
      to_delivered_median_ms: 5_000,
      to_delivered_p95_ms: 5_000,
      canary_ended: 3,
      canary_passed: 2,
      canary_pass_rate: 0.6667,
    });
    expect((byId.get(a.id) as { sims: unknown[] }).sims).to.deep.equal([
      {
        sim_slot: 0,
        sent: 1,
        failed_send: 1,
        delivered: 1,
        undelivered: 0,
        delivery_ratio: 1,
        to_sent_median_ms: 2_000,
        to_sent_p95_ms: 2_000,
        to_delivered_median_ms: 5_000,
        to_delivered_p95_ms: 5_000,
        canary_ended: 2,
        canary_passed: 1,
        canary_pass_rate: 0.5,
      },
      {
        sim_slot: 1,
        sent: 1,
        failed_send: 0,
        delivered: 0,
        undelivered: 1,
        delivery_ratio: 0,
        to_sent_median_ms: 4_000,
        to_sent_p95_ms: 4_000,
        to_delivered_median_ms: null,
        to_delivered_p95_ms: null,
        canary_ended: 1,
        canary_passed: 1,
        canary_pass_rate: 1,
      },
    ]);
    expect(byId.get(b.id)).to.deep.include({ sent: 1, delivered: 0, undelivered: 0, delivery_ratio: null, to_sent_median_ms: 8_000, canary_ended: 1, canary_pass_rate: 1 });
    expect(byId.get(idle.id)).to.deep.equal({ device_id: idle.id, name: 'idle', deleted: false, ...zero, sims: [] });

    // Another account sees none of it.
    const other = await fx.newTenant();
    expect((await other.api.get(`/stats/devices?${RANGE}`)).body.devices).to.deep.equal([]);
  });

  it('leaves canary SMS out of the dashboard summary as well', async () => {
    await traffic();
    const { sms, hourly } = (await fx.tenant.api.get('/stats/summary')).body;
    // By status now: the cancelled SMS is failed_send too here.
    expect(sms.by_status).to.deep.include({ sent: 1, delivered: 1, undelivered: 1, failed_send: 2 });
    const sent = hourly.reduce((sum: number, bucket: { sent: number }) => sum + bucket.sent, 0);
    expect(sent, 's1, s2 and s4 became sent; the canary is not counted').to.equal(3);
  });

  it('names the devices with a degraded SIM on the dashboard summary (null without devices:read)', async () => {
    const { device: sick } = await fx.registerDevice('sick');
    const { device: well } = await fx.registerDevice('well');
    await degradeSim(fx, sick.id, 0, 'send', 'canaries to two receivers failed', new Date(T0));
    await degradeSim(fx, sick.id, 1, 'receive', 'canaries from two senders missing', new Date(T0));
    await healthySim(fx, well.id, 0);
    const summary = await fx.tenant.api.get('/stats/summary');
    expect(summary.body.degraded_devices).to.deep.equal([{ id: sick.id, name: 'sick', degraded_sims: 2 }]);
    expect((await (await fx.keyWith(['sms:read'])).get('/stats/summary')).body.degraded_devices).to.equal(null);
  });

  it('answers CSV with format=csv or Accept: text/csv, as an attachment: a row per device, then per SIM', async () => {
    const { a, b } = await traffic();
    const csv = await fx.tenant.api.get(`/stats/devices?${RANGE}&format=csv`);
    expect(csv.status).to.equal(200);
    expect(csv.headers.get('content-type')).to.match(/^text\/csv/);
    expect(csv.headers.get('content-disposition')).to.equal('attachment; filename="device-stats-2026-11-22-2026-11-22.csv"');
    const lines = (csv.body as string).trimEnd().split('\r\n');
    expect(lines[0]).to.equal(
      'device_id,device_name,deleted,sim_slot,sent,failed_send,delivered,undelivered,delivery_ratio,to_sent_median_ms,to_sent_p95_ms,' +
        'to_delivered_median_ms,to_delivered_p95_ms,canary_ended,canary_passed,canary_pass_rate',
    );
    expect(lines).to.include(`${a.id},task-phone,false,all,2,1,1,1,0.5,3000,3900,5000,5000,3,2,0.6667`);
    expect(lines).to.include(`${a.id},task-phone,false,1,1,0,0,1,0,4000,4000,,,1,1,1`);
    expect(lines).to.include(`${b.id},task-phone,false,0,1,0,0,0,,8000,8000,,,1,1,1`);
    expect(lines).to.have.length(1 + 3 + 2);

    const accepted = await fx.tenant.api.request('GET', `/stats/devices?${RANGE}`, undefined, { accept: 'text/csv' });
    expect(accepted.headers.get('content-type')).to.match(/^text\/csv/);
    expect(accepted.body).to.equal(csv.body);
    const json = await fx.tenant.api.request('GET', `/stats/devices?${RANGE}&format=json`, undefined, { accept: 'text/csv' });
    expect(json.headers.get('content-type'), 'format wins over Accept').to.match(/^application\/json/);
  });

  it('covers the last 7 days by default, and refuses a range that is not one (400)', async () => {
    const fallback = await fx.tenant.api.get('/stats/devices');
    expect(fallback.status).to.equal(200);
    expect(fallback.body).to.include({ from: '2026-11-15T10:00:00.000Z', to: '2026-11-22T10:00:00.000Z' });
    const fromOnly = await fx.tenant.api.get('/stats/devices?from=2026-10-01T00:00:00Z');
    expect(fromOnly.body).to.include({ from: '2026-10-01T00:00:00.000Z', to: '2026-11-22T10:00:00.000Z' });

    expectError(await fx.tenant.api.get('/stats/devices?from=yesterday'), 400, 'validation_failed');
    expectError(await fx.tenant.api.get('/stats/devices?from=2026-11-22T10:00:00Z&to=2026-11-22T10:00:00Z'), 400, 'validation_failed');
    expectError(await fx.tenant.api.get('/stats/devices?from=2026-11-22T10:00:00Z&to=2026-11-21T10:00:00Z'), 400, 'validation_failed');
    expectError(await fx.tenant.api.get('/stats/devices?from=2025-11-20T00:00:00Z&to=2026-11-22T00:00:00Z'), 400, 'validation_failed');
    expect((await fx.tenant.api.get('/stats/devices?from=2025-11-21T00:00:00Z&to=2026-11-22T00:00:00Z')).status, 'exactly 366 days').to.equal(200);
    expectError(await fx.tenant.api.get('/stats/devices?format=xml'), 400, 'validation_failed');
  });

  it('needs devices:read (403 without it); a viewer reads it', async () => {
    expectError(await (await fx.keyWith(['sms:read'])).get('/stats/devices'), 403, 'forbidden');
    expect((await (await fx.keyWith(['devices:read'])).get('/stats/devices')).status).to.equal(200);
    const viewer = await userSession(fx.gateway, fx.tenant.accountId, 'viewer');
    expect((await viewer.get('/stats/devices')).status).to.equal(200);
  });
});
