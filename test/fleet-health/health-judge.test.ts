// The health judge, on canary probes written as a round would leave them: a SIM whose canaries
// failed to reach two receivers that others reached is degraded (fault send), one that failed to
// receive from two senders that reached others is degraded (fault receive), fewer partners than
// that degrade nothing; a degraded SIM recovers when a canary it sent (or received) passes, or when
// its owner marks it healthy. Each change is in sim_health, on GET /devices/{id}/health, and a
// webhook event (device.degraded / device.recovered) written once.
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { ManualClock } from '../../src/common/clock.ts';
import { useGateway } from '../support/use-gateway.ts';
import { createWebhook, dropWebhooks, webhookConfig } from '../support/webhooks.ts';
import { deliveryRowsOf, endCanaryRound, simHealthRowsOf } from '../support/test-data.ts';
import type { Received } from '../support/receiver.ts';
import { aCannotSend as probesWhereACannotSend, judge as judgeProbes, writeProbes, type Probe } from './health-probes.ts';

const ofType = (type: string) => (received: Received) => received.json?.type === type;

describe('fleet health: the judge', () => {
  const clock = new ManualClock(Date.parse('2026-12-05T10:00:00Z'));
  const fx = useGateway({ clock, config: { webhooks: webhookConfig() } });
  let a: string;
  let b: string;
  let c: string;

  beforeEach(async () => {
    const ids = await Promise.all(['A', 'B', 'C'].map(async (name) => (await fx.registerDevice(name)).device.id));
    [a, b, c] = [ids[0]!, ids[1]!, ids[2]!];
  });
  afterEach(() => dropWebhooks(fx.gateway, [fx.tenant.accountId]));

  const probes = (...list: Probe[]) => writeProbes(fx, clock, ...list);
  const judge = () => judgeProbes(fx);
  const simHealth = (deviceId: string) => simHealthRowsOf(fx, deviceId);
  const health = async (deviceId: string) => {
    const reply = await fx.tenant.api.get(`/devices/${deviceId}/health`);
    expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
    return reply.body;
  };
  const eventsOf = async (webhookId: string, type: string) => (await deliveryRowsOf(fx, webhookId)).filter((row) => row.event_type === type);

  const aCannotSend = () => probesWhereACannotSend(a, b, c);

  it('when a SIM failed to reach two receivers that others reached, then it is degraded with fault send, once, and the others stay as they were', async () => {
    const receiver = await fx.receiver();
    const { webhook: { id: webhookId } } = await createWebhook(fx.tenant, receiver.url, ['device.degraded', 'device.recovered']);
    await probes(...aCannotSend());
    await judge();

    const [row] = await simHealth(a);
    expect(row).to.include({ sim_slot: 0, degraded_fault: 'send' });
    expect(new Date(row.degraded_since).toISOString()).to.equal(new Date(clock.now()).toISOString());
    expect(row.degraded_reason).to.contain('did not reach 2 SIMs').and.contain('rounds 1, 2');
    expect(await simHealth(b)).to.deep.equal([]);
    expect(await simHealth(c)).to.deep.equal([]);

    const [degraded] = await receiver.waitFor(1, ofType('device.degraded'));
    expect(degraded!.json.data).to.deep.include({ device_id: a, sim_slot: 0, fault: 'send', reason: row.degraded_reason });
    expect(degraded!.json.data.device).to.include({ id: a, name: 'A' });

    // Judged again on the same probes (another probe of the account ended): nothing new to say.
    await judge();
    expect(await eventsOf(webhookId, 'device.degraded')).to.have.length(1);

    const shown = await health(a);
    expect(shown.state).to.equal('degraded');
    expect(shown.sims[0]).to.include({ sim_slot: 0, state: 'degraded', fault: 'send' });
    expect(shown.reasons.map((reason: { code: string }) => reason.code)).to.include('canary_send_failed');
    expect(shown.canary).to.have.length(4);
    // Newest first: round 2's two probes (as sender and as receiver), then round 1's.
    expect(shown.canary.map((result: { round: number }) => result.round)).to.deep.equal([2, 2, 1, 1]);
    const sent = shown.canary.find((result: { round: number; role: string }) => result.round === 2 && result.role === 'sender');
    expect(sent).to.deep.equal({ round: 2, role: 'sender', sim_slot: 0, partner_device_id: c, partner_sim_slot: 0, result: 'failed', failure: 'timeout', round_trip_ms: null, at: sent.at });
    const received = shown.canary.find((result: { round: number; role: string }) => result.round === 2 && result.role === 'receiver');
    expect(received).to.include({ partner_device_id: b, result: 'passed', round_trip_ms: 4_000 });
    expect((await health(b)).state).to.equal('healthy');
  });

  it('when a SIM failed to receive from two senders that reached others, then it is degraded with fault receive', async () => {
    await probes(
      { round: 1, from: [a, 0], to: [b, 0], result: 'failed' },
      { round: 1, from: [b, 0], to: [c, 0], result: 'passed' },
      { round: 1, from: [c, 0], to: [a, 0], result: 'passed' },
      { round: 2, from: [c, 0], to: [b, 0], result: 'failed' },
      { round: 2, from: [a, 0], to: [c, 0], result: 'passed' },
      { round: 2, from: [b, 0], to: [a, 0], result: 'passed' },
    );
    await judge();
    expect(await simHealth(b)).to.have.length(1);
    expect((await simHealth(b))[0]).to.include({ degraded_fault: 'receive' });
    expect((await simHealth(b))[0].degraded_reason).to.contain('did not receive the canary SMS of 2 SIMs');
    expect(await simHealth(a)).to.deep.equal([]);
    const shown = await health(b);
    expect(shown.sims[0]).to.include({ state: 'degraded', fault: 'receive' });
  });

  it('when a SIM failed to reach one receiver only, or the receivers were reached by no one else, then nothing is degraded and its health says it cannot tell', async () => {
    // Two SIMs: B never received anything, so A's failure may be B's as well as A's.
    await probes({ round: 1, from: [a, 0], to: [b, 0], result: 'failed' }, { round: 1, from: [b, 0], to: [a, 0], result: 'passed' }, { round: 2, from: [a, 0], to: [b, 0], result: 'failed' });
    await judge();
    expect(await simHealth(a)).to.deep.equal([]);
    expect(await simHealth(b)).to.deep.equal([]);
    const shown = await health(a);
    expect(shown.sims[0]).to.include({ state: 'healthy', fault: null, degraded_since: null });
    const codes = shown.reasons.map((reason: { code: string }) => reason.code);
    expect(codes).to.include.members(['canary_failed_as_sender', 'canary_undecided']);
    expect(shown.reasons.find((reason: { code: string }) => reason.code === 'canary_undecided').detail).to.contain('too few');
  });

  it('when failures are older than a canary the SIM sent that passed, then they are forgiven', async () => {
    await probes(
      { round: 1, from: [a, 0], to: [b, 0], result: 'failed' },
      { round: 1, from: [b, 0], to: [c, 0], result: 'passed' },
      { round: 2, from: [a, 0], to: [c, 0], result: 'failed' },
      { round: 2, from: [c, 0], to: [b, 0], result: 'passed' },
      { round: 3, from: [a, 0], to: [b, 0], result: 'passed' },
    );
    await judge();
    expect(await simHealth(a)).to.deep.equal([]);
  });

  it('when a degraded SIM sends a canary that passes, then it recovers with device.recovered, once', async () => {
    const receiver = await fx.receiver();
    const { webhook: { id: webhookId } } = await createWebhook(fx.tenant, receiver.url, ['device.degraded', 'device.recovered']);
    await probes(...aCannotSend());
    await judge();
    clock.advance(3_600_000);
    // A canary that passed before it was degraded does not count; one after does.
    await probes({ round: 3, from: [a, 0], to: [b, 0], result: 'pending', ago: 5 });
    await judge();
    expect((await simHealth(a))[0]).to.include({ degraded_fault: 'send' });
    await probes({ round: 4, from: [a, 0], to: [c, 0], result: 'passed', ago: 1 }, { round: 4, from: [b, 0], to: [a, 0], result: 'passed', ago: 1 });
    await judge();
    const [cleared] = await simHealth(a);
    expect(cleared).to.include({ degraded_since: null, degraded_fault: null });
    expect(cleared.degraded_reason).to.equal('a canary SMS it sent arrived again (round 4)');
    expect(new Date(cleared.cleared_at).getTime()).to.equal(clock.now());

    const [recovered] = await receiver.waitFor(1, ofType('device.recovered'));
    expect(recovered!.json.data).to.deep.include({ device_id: a, sim_slot: 0, fault: 'send', reason: 'a canary SMS it sent arrived again (round 4)' });
    await judge();
    expect(await eventsOf(webhookId, 'device.recovered')).to.have.length(1);
    expect(await eventsOf(webhookId, 'device.degraded')).to.have.length(1);
    expect((await health(a)).sims[0]).to.include({ state: 'healthy', fault: null });
  });

  it('when a canary sent before the failures that degraded a SIM arrives late, then it does not recover it', async () => {
    await probes(...aCannotSend());
    await judge();
    clock.advance(60_000);
    // Sent in round 0, before both failures, and arriving only now.
    await probes({ round: 0, from: [a, 0], to: [b, 0], result: 'passed', ago: 120 });
    await endCanaryRound(fx, fx.tenant.accountId, 0, new Date(clock.now()));
    await judge();
    expect((await simHealth(a))[0]).to.include({ degraded_fault: 'send' });
  });

  it('when a degraded receiver is sent a canary that passes, then it recovers', async () => {
    await probes(
      { round: 1, from: [a, 0], to: [b, 0], result: 'failed' },
      { round: 1, from: [a, 0], to: [c, 0], result: 'passed' },
      { round: 2, from: [c, 0], to: [b, 0], result: 'failed' },
      { round: 2, from: [c, 0], to: [a, 0], result: 'passed' },
    );
    await judge();
    expect((await simHealth(b))[0]).to.include({ degraded_fault: 'receive' });
    clock.advance(60_000);
    await probes({ round: 3, from: [a, 0], to: [b, 0], result: 'passed', ago: 0 });
    await judge();
    expect((await simHealth(b))[0]).to.include({ degraded_fault: null });
  });

  it('when the owner marks a degraded SIM healthy, then it is cleared and announced once with the owner as reason; a SIM that was not degraded announces nothing', async () => {
    const receiver = await fx.receiver();
    const { webhook: { id: webhookId } } = await createWebhook(fx.tenant, receiver.url, ['device.degraded', 'device.recovered']);
    await probes(...aCannotSend());
    await judge();

    const marked = await fx.tenant.api.post(`/devices/${a}/health/mark-healthy`, { sim_slot: 0 });
    expect(marked.status, JSON.stringify(marked.body)).to.equal(200);
    expect(marked.body.device_id).to.equal(a);
    expect(marked.body.sims[0]).to.include({ sim_slot: 0, fault: null, degraded_since: null });
    expect(marked.body.reasons.map((reason: { code: string }) => reason.code)).not.to.include('canary_send_failed');
    expect((await simHealth(a))[0]).to.include({ degraded_fault: null });
    const [recovered] = await receiver.waitFor(1, ofType('device.recovered'));
    expect(recovered!.json.data).to.deep.include({ device_id: a, sim_slot: 0, fault: 'send', reason: 'marked healthy by the owner' });

    expect((await fx.tenant.api.post(`/devices/${a}/health/mark-healthy`, {})).status).to.equal(200);
    // No body at all, as the docs' curl sends it (a JSON content type and nothing after): every SIM.
    expect((await fx.tenant.api.request('POST', `/devices/${b}/health/mark-healthy`, undefined, { 'content-type': 'application/json' })).status).to.equal(200);
    expect(await eventsOf(webhookId, 'device.recovered')).to.have.length(1);

    // The failures the owner answered are not weighed again when the next probe ends...
    clock.advance(60_000);
    await probes({ round: 3, from: [b, 0], to: [c, 0], result: 'passed', ago: 0 });
    await judge();
    expect((await simHealth(a))[0]).to.include({ degraded_fault: null });
    // ...but new ones are.
    clock.advance(60_000);
    await probes({ round: 4, from: [a, 0], to: [b, 0], result: 'failed', ago: 0 }, { round: 4, from: [c, 0], to: [b, 0], result: 'passed', ago: 0 });
    await judge();
    expect((await simHealth(a))[0]).to.include({ degraded_fault: null });
    clock.advance(60_000);
    await probes({ round: 5, from: [a, 0], to: [c, 0], result: 'failed', ago: 0 }, { round: 5, from: [b, 0], to: [c, 0], result: 'passed', ago: 0 });
    await judge();
    expect((await simHealth(a))[0]).to.include({ degraded_fault: 'send' });
    expect(await eventsOf(webhookId, 'device.degraded')).to.have.length(2);
  });

  it('when the body or the device is wrong, then mark-healthy is a 400 or a 404 and changes nothing', async () => {
    await probes(...aCannotSend());
    await judge();
    for (const body of [{ sim_slot: 8 }, { sim_slot: -1 }, { sim_slot: '0' }, { slot: 0 }]) {
      const reply = await fx.tenant.api.post(`/devices/${a}/health/mark-healthy`, body);
      expect(reply.status, JSON.stringify(body)).to.equal(400);
      expect(reply.body.error.code).to.equal('validation_failed');
    }
    expect((await fx.tenant.api.post(`/devices/${randomUUID()}/health/mark-healthy`, {})).status).to.equal(404);
    expect((await fx.tenant.api.get(`/devices/${randomUUID()}/health`)).status).to.equal(404);
    expect((await fx.tenant.api.get(`/devices/not-a-uuid/health`)).status).to.equal(400);
    // Another account's device is not found.
    const other = await fx.newTenant();
    expect((await other.api.get(`/devices/${a}/health`)).status).to.equal(404);
    expect((await other.api.post(`/devices/${a}/health/mark-healthy`, {})).status).to.equal(404);
    // A key that may only read the devices reads the health and may not mark.
    const reader = await fx.keyWith(['devices:read']);
    expect((await reader.get(`/devices/${a}/health`)).status).to.equal(200);
    expect((await reader.post(`/devices/${a}/health/mark-healthy`, {})).status).to.equal(403);
    expect((await simHealth(a))[0]).to.include({ degraded_fault: 'send' });
  });
});
