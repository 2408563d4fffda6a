// The upstream report (GET /stats/upstreams): per upstream, the SMS handed to it over a range,
// what became of them, their segments and what they cost at the price of the moment each was
// handed over, beside the phones' figures. Two SMSCs (the smpp package's server): one refuses
// every SMS, the other takes them; a simulated phone takes the SMS the routes leave to the phones.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { webhookConfig } from '../support/webhooks.ts';
import { eventually } from '../support/eventually.ts';
import { connectDevice } from '../support/devices.ts';
import { ESME_RINVDSTADR, TestSmsc } from '../support/test-smsc.ts';
import { LOOPBACK_PROVIDERS, smppUpstream } from '../support/smpp-upstream.ts';
import type { ApiClient } from '../support/tenant.ts';

const UK = '+447911123456';
const ELSEWHERE = '+79161234567';
/** 168 characters outside the GSM alphabet: three UCS-2 parts. */
const LONG_TEXT = 'Ваша посылка в пути. '.repeat(8);

describe('upstream report: costs and counts per upstream beside the phones', function () {
  this.timeout(30_000);
  const fx = useGateway({ config: { webhooks: webhookConfig({ allowedHosts: LOOPBACK_PROVIDERS }) } });
  let refusing: TestSmsc;
  let carrier: TestSmsc;

  beforeEach(async () => {
    refusing = await TestSmsc.start();
    refusing.answer = () => ESME_RINVDSTADR;
    carrier = await TestSmsc.start();
  });
  afterEach(async () => {
    await refusing.stop();
    await carrier.stop();
  });

  const upstream = (api: ApiClient, smsc: TestSmsc, name: string, prices: object = {}) => smppUpstream(api, smsc, { name, ...prices });
  const sms = async (id: string) => (await fx.tenant.api.get(`/sms/${id}`)).body as { status: string };
  async function send(phone: string, message: string): Promise<string> {
    const created = await fx.tenant.api.post('/sms', { phone, message });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    return created.body.id as string;
  }
  async function receipt(smsc: TestSmsc, messageId: string, stat: string, state: number): Promise<void> {
    const answered = smsc.deliverResponses.length;
    smsc.receipt(messageId, stat, state);
    await eventually(`the receipt of ${messageId} taken`, () => smsc.deliverResponses.length > answered);
  }

  it('counts and prices each upstream\'s SMS at the price of the moment, and the phones\' beside them', async () => {
    const started = Date.now();
    const first = await upstream(fx.tenant.api, refusing, 'refusing');
    const second = await upstream(fx.tenant.api, carrier, 'carrier', { price_per_segment: 0.01, prefix_prices: [{ prefix: '+44', price: 0.02 }] });
    const routes = await fx.tenant.api.request('PUT', '/routes', {
      routes: [{ target: first, prefixes: ['+44'] }, { target: second, prefixes: ['+44'] }, { target: 'phones' }],
    });
    expect(routes.status, JSON.stringify(routes.body)).to.equal(200);

    // One segment at 0.02, delivered.
    const short = await send(UK, 'Your code is 123456');
    await eventually('the short one sent', async () => (await sms(short)).status === 'sent');
    await receipt(carrier, carrier.givenIds[0]!, 'DELIVRD', 2);
    await eventually('the short one delivered', async () => (await sms(short)).status === 'delivered');

    // The price goes up: what the short one cost stays 0.02; three segments at 0.5, one part undelivered.
    const repriced = await fx.tenant.api.patch(`/upstreams/${second}`, { prefix_prices: [{ prefix: '+44', price: 0.5 }] });
    expect(repriced.status, JSON.stringify(repriced.body)).to.equal(200);
    await eventually('carrier bound again', async () => (await fx.tenant.api.get(`/upstreams/${second}`)).body.link.state === 'ready');
    const long = await send(UK, LONG_TEXT);
    await eventually('the long one sent', async () => (await sms(long)).status === 'sent');
    await receipt(carrier, carrier.givenIds[2]!, 'UNDELIV', 5);
    await eventually('the long one undelivered', async () => (await sms(long)).status === 'undelivered');

    // Not for +44: the phones take it. The phone comes online only now, once the +44 SMS are
    // settled, so that this one is the only SMS it can be handed.
    fx.track(await connectDevice(fx.gateway, fx.tenant));
    const local = await send(ELSEWHERE, 'see you at 5');
    await eventually('the phone delivered it', async () => (await sms(local)).status === 'delivered', 10_000);

    const range = `from=${new Date(started - 60_000).toISOString()}&to=${new Date(Date.now() + 60_000).toISOString()}`;
    const reply = await fx.tenant.api.get(`/stats/upstreams?${range}`);
    expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
    expect(reply.body.phones).to.deep.equal({ handed_over: 1, sent: 1, failed_send: 0, delivered: 1, undelivered: 0, failed_delivery: 0, delivery_ratio: 1 });
    const byName = Object.fromEntries((reply.body.upstreams as { name: string }[]).map((row) => [row.name, row]));
    expect(reply.body.upstreams.map((row: { name: string }) => row.name)).to.deep.equal(['refusing', 'carrier']);
    expect(byName.refusing).to.deep.include({ upstream_id: first, kind: 'smpp', handed_over: 2, sent: 0, failed_send: 2, delivered: 0, segments: 0, cost: 0, delivery_ratio: null });
    expect(byName.carrier).to.deep.include({
      upstream_id: second, handed_over: 2, sent: 2, failed_send: 0, delivered: 1, undelivered: 1, failed_delivery: 0, delivery_ratio: 0.5, segments: 4, cost: 1.52,
    });
    // The month's spend on the upstream says the same.
    expect((await fx.tenant.api.get(`/upstreams/${second}`)).body.month).to.include({ segments: 4, spent: 1.52 });

    // A range before any of them counts nothing.
    const before = await fx.tenant.api.get(`/stats/upstreams?from=${new Date(started - 7_200_000).toISOString()}&to=${new Date(started - 3_600_000).toISOString()}`);
    expect(before.body.upstreams.map((row: { handed_over: number; cost: number }) => [row.handed_over, row.cost])).to.deep.equal([[0, 0], [0, 0]]);
    expect(before.body.phones.handed_over).to.equal(0);

    const csv = await fx.tenant.api.get(`/stats/upstreams?${range}&format=csv`);
    expect(csv.status).to.equal(200);
    const lines = String(csv.body).trim().split('\r\n');
    expect(lines[0]).to.equal('route,upstream_id,name,kind,handed_over,sent,failed_send,delivered,undelivered,failed_delivery,delivery_ratio,segments,cost');
    expect(lines[1]).to.equal('phones,,,,1,1,0,1,0,0,1,,');
    expect(lines[3]).to.equal(`upstream,${second},carrier,smpp,2,2,0,1,1,0,0.5,4,1.52`);
  });

  it('is for keys that read upstreams, and refuses a range that is not one', async () => {
    const statsOnly = await fx.keyWith(['sms:read', 'devices:read']);
    expect((await statsOnly.get('/stats/upstreams')).status).to.equal(403);
    const reader = await fx.keyWith(['upstreams:read']);
    const empty = await reader.get('/stats/upstreams');
    expect(empty.status, JSON.stringify(empty.body)).to.equal(200);
    expect(empty.body.upstreams).to.deep.equal([]);
    const backwards = await fx.tenant.api.get('/stats/upstreams?from=2026-11-02T00:00:00Z&to=2026-11-01T00:00:00Z');
    expect(backwards.status).to.equal(400);
    expect(JSON.stringify(backwards.body)).to.contain('to');
    expect((await fx.tenant.api.get('/stats/upstreams?from=yesterday')).status).to.equal(400);
  });
});
