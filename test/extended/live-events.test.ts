// GET /events: the account's changes as server-sent events, for the control panel's live pages.
// A stream hears its own account only, and only what its caller may read; an SMS's status
// changes arrive in order as a phone reports them; presence and incoming SMS too; the number of
// streams per account is bounded; stopping the gateway ends open streams.
import { expect } from 'chai';
import { MAX_STREAMS_PER_ACCOUNT } from '../../src/modules/live/hub.ts';
import { connectDevice } from '../support/devices.ts';
import { EventStreamClient } from '../support/event-stream.ts';
import type { Tenant } from '../support/tenant.ts';
import { useGateway } from '../support/use-gateway.ts';
import { eventually } from '../support/eventually.ts';

describe('extended API: GET /events (live event stream)', () => {
  const fx = useGateway();

  async function open(key: string, baseUrl = fx.baseUrl): Promise<EventStreamClient> {
    const stream = await EventStreamClient.open(`${baseUrl}/api/ext/v1/events`, { authorization: `Bearer ${key}` });
    fx.onCleanup(() => stream.stop());
    return stream;
  }

  async function sendSms(tenant: Tenant): Promise<string> {
    const reply = await tenant.api.post('/sms', { phone: '+79161234567', message: 'live event test' });
    expect(reply.status, JSON.stringify(reply.body)).to.equal(201);
    return reply.body.id as string;
  }

  it('when a phone sends an SMS, then the stream carries its creation (pending) and its status changes in order, ids and states only', async () => {
    const stream = await open(fx.tenant.key);
    expect(stream.status).to.equal(200);
    expect(stream.contentType).to.match(/^text\/event-stream/);
    fx.track(await connectDevice(fx.gateway, fx.tenant));

    const id = await sendSms(fx.tenant);
    const delivered = await stream.next('sms.status', (data) => data.id === id && data.status === 'delivered');
    expect(Object.keys(delivered.data)).to.have.members(['id', 'status', 'internal_status', 'at', 'reason', 'device_id']);
    // status in the Extended API's words (a phone taking it stays "pending"); internal_status the step.
    const changes = stream.events.filter((event) => event.type === 'sms.status' && event.data.id === id).map((event) => [event.data.internal_status, event.data.status]);
    expect(changes).to.deep.equal([
      ['pending', 'pending'],
      ['processing', 'pending'],
      ['sent', 'sent'],
      ['delivered', 'delivered'],
    ]);
    expect(JSON.stringify(stream.events)).not.to.contain('live event test');
  });

  it('when a device connects and disconnects, then device.presence says online and then offline', async () => {
    const stream = await open(fx.tenant.key);
    const phone = await connectDevice(fx.gateway, fx.tenant);
    const online = await stream.next('device.presence', (data) => data.id === phone.id && data.online === true);
    expect(Object.keys(online.data)).to.have.members(['id', 'online', 'at']);
    await phone.stop();
    await stream.next('device.presence', (data) => data.id === phone.id && data.online === false);
  });

  it('when a device forwards an incoming SMS, then sms.received names it and its device', async () => {
    const stream = await open(fx.tenant.key);
    const phone = fx.track(await connectDevice(fx.gateway, fx.tenant));
    expect((await fx.tenant.api.patch(`/devices/${phone.id}/settings`, { forward_incoming_sms: true })).status).to.equal(200);
    await phone.receive('+79161230002', 'hello from outside');
    const received = await stream.next('sms.received', (data) => data.device_id === phone.id);
    const list = await fx.tenant.api.get('/incoming');
    expect(list.body.data.map((row: { id: string }) => row.id)).to.include(received.data.id);
  });

  it('when a key cannot read devices, then its stream hears SMS but no presence', async () => {
    const smsOnly = await fx.keyWith(['sms:read', 'sms:send']);
    const restricted = await open(smsOnly.key!);
    const full = await open(fx.tenant.key);
    fx.track(await connectDevice(fx.gateway, fx.tenant));
    await full.next('device.presence');
    // Events reach each stream in the order they happened: once the later SMS event is in,
    // a presence event sent to this stream would have been read before it.
    const id = await sendSms(fx.tenant);
    await restricted.next('sms.status', (data) => data.id === id);
    expect(restricted.events.filter((event) => event.type === 'device.presence')).to.deep.equal([]);
  });

  it("when another account's SMS and devices change, then this account's stream hears none of it", async () => {
    const other = await fx.newTenant();
    const mine = await open(fx.tenant.key);
    fx.track(await connectDevice(fx.gateway, other));
    const theirs = await sendSms(other);
    fx.track(await connectDevice(fx.gateway, fx.tenant));
    const own = await sendSms(fx.tenant);
    await mine.next('sms.status', (data) => data.id === own && data.status === 'delivered');
    expect(mine.events.some((event) => event.data.id === theirs)).to.equal(false);
    expect(mine.events.filter((event) => event.type === 'device.presence')).to.have.length(1);
  });

  it('when the caller has no key, or a key without sms:read, then it is refused 401 / 403 and no stream opens', async () => {
    const anonymous = await EventStreamClient.open(`${fx.baseUrl}/api/ext/v1/events`, {});
    expect(anonymous.status).to.equal(401);
    const devicesOnly = await fx.keyWith(['devices:read']);
    const refused = await EventStreamClient.open(`${fx.baseUrl}/api/ext/v1/events`, { authorization: `Bearer ${devicesOnly.key!}` });
    expect(refused.status).to.equal(403);
    expect(JSON.parse(refused.body).error.code).to.equal('forbidden');
  });

  it(`when an account holds ${MAX_STREAMS_PER_ACCOUNT} streams, then the next is refused 429 too_many_streams, and closing one makes room`, async () => {
    const streams = [];
    for (let i = 0; i < MAX_STREAMS_PER_ACCOUNT; i++) streams.push(await open(fx.tenant.key));
    expect(streams.every((stream) => stream.status === 200)).to.equal(true);
    const refused = await open(fx.tenant.key);
    expect(refused.status).to.equal(429);
    expect(JSON.parse(refused.body).error.code).to.equal('too_many_streams');
    // Another account is not affected.
    const other = await fx.newTenant();
    expect((await open(other.key)).status).to.equal(200);

    streams[0]!.stop();
    // The server sees a client's close a moment after it happens.
    await eventually('a stream accepted again once one closed', async () => (await open(fx.tenant.key)).status === 200);
  });

  it('when the gateway stops, then it ends the open streams instead of waiting for them', async () => {
    const gateway = await fx.startGateway();
    const tenant = await fx.newTenant(undefined, gateway);
    const stream = await open(tenant.key, `http://127.0.0.1:${gateway.httpPort}`);
    expect(stream.status).to.equal(200);
    const started = Date.now();
    await gateway.stop();
    await stream.closed();
    expect(Date.now() - started).to.be.below(5_000);
  });
});
