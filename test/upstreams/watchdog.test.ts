// The stalled-submission watchdog: a submission whose answer was never applied (the SMSC never
// answered, or the node that submitted it stopped before it did) is settled as
// upstream_outcome_unknown once SUBMIT_WATCHDOG_MS have passed since it began, and never tried
// again: the SMSC may have the SMS, and a second submit_sm could send it twice.
//
// The SMSC (the smpp package's server) accepts the binds and holds every submit_sm unanswered;
// time is a ManualClock. With two gateways sharing the database, the node that submitted keeps
// waiting for its answer and the other one judges it; on one node, the link gives up waiting and
// the node judges it itself.
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { ManualClock } from '../../src/common/clock.ts';
import type { Gateway } from '../../src/gateway.ts';
import type { SmppLink } from '../../src/modules/upstreams/links/smpp/index.ts';
import { SUBMIT_WATCHDOG_MS } from '../../src/modules/upstreams/routing/router.ts';
import { useGateway } from '../support/use-gateway.ts';
import { webhookConfig } from '../support/webhooks.ts';
import { eventually } from '../support/eventually.ts';
import { testDatabase } from '../support/environment.ts';
import { ApiClient } from '../support/tenant.ts';
import { TestSmsc } from '../support/test-smsc.ts';

const PHONE = '+447911123456';

const linkOf = (gateway: Gateway, upstreamId: string) => gateway.services.upstreamLinks.get(upstreamId) as SmppLink | undefined;

// Several nodes need PostgreSQL: the embedded database belongs to one process.
if (testDatabase().kind === 'postgres') describe('upstream routes: the watchdog of a submission never answered', function () {
  this.timeout(30_000);
  const clock = new ManualClock(Date.parse('2026-11-29T12:00:00Z'));
  // One key seals the upstream's password for both nodes; 127.0.0.1 (the SMSC) let through the outbound guard.
  const webhooks = webhookConfig({ allowedHosts: ['127.0.0.1'], secretKey: randomBytes(32) });
  const fx = useGateway({ clock, config: { webhooks } });
  let smsc: TestSmsc;

  beforeEach(async () => {
    smsc = await TestSmsc.start();
    smsc.answer = () => 'hold';
  });
  afterEach(async () => {
    await smsc.stop();
  });

  const apiOf = (gateway: Gateway) => new ApiClient(`http://127.0.0.1:${gateway.httpPort}/api/ext/v1`, fx.tenant.key);
  /** The routers look once, as their timers would. */
  const look = (nodes: Gateway[]) => Promise.all(nodes.map((node) => node.services.upstreamRouter.pass()));

  it('fails the SMS as upstream_outcome_unknown past the limit, lists the verdict among its attempts, and submits it no second time', async () => {
    const created = await fx.tenant.api.post('/upstreams', { name: 'silent', kind: 'smpp', host: '127.0.0.1', port: smsc.port, system_id: 'gateway', password: smsc.password });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    const upstreamId = created.body.id as string;
    const routes = await fx.tenant.api.request('PUT', '/routes', { routes: [{ target: upstreamId }] });
    expect(routes.status, JSON.stringify(routes.body)).to.equal(200);
    // The second node reads the upstream and the routes as it starts.
    const other = await fx.startGateway({ webhooks }, clock);
    const nodes = [fx.gateway, other];
    await eventually('both nodes bound', () => nodes.every((node) => linkOf(node, upstreamId)?.status.state === 'ready'));

    const sent = await fx.tenant.api.post('/sms', { phone: PHONE, message: 'Your code is 123456' });
    expect(sent.status, JSON.stringify(sent.body)).to.equal(201);
    const smsId = sent.body.id as string;
    await eventually('the SMSC holds the submit_sm', () => smsc.held.length === 1);
    const submitter = nodes.find((node) => linkOf(node, upstreamId)?.outstanding === 1)!;
    const judge = nodes.find((node) => node !== submitter)!;
    const sms = async () => (await apiOf(judge).get(`/sms/${smsId}`)).body as { status: string; reason: string | null };

    // Just short of the limit: the submission may still be answered.
    clock.advance(SUBMIT_WATCHDOG_MS - 1_000);
    await look(nodes);
    expect(await sms()).to.include({ status: 'pending', reason: null });

    clock.advance(2_000);
    // A look may find the row locked by the other node's look (skip locked): the next one decides.
    await eventually('the watchdog\'s verdict', async () => {
      await look(nodes);
      return (await sms()).status === 'failed_send';
    });
    expect(await sms()).to.include({ status: 'failed_send', reason: 'upstream_outcome_unknown' });
    const attempts = (await apiOf(judge).get(`/sms/${smsId}/attempts`)).body.data as { result: string; error_code: string | null }[];
    expect(attempts.map((attempt) => [attempt.result, attempt.error_code])).to.deep.equal([['failed', 'upstream_outcome_unknown']]);

    // The SMSC answers at last: the verdict stands, and nothing is charged for it.
    smsc.release();
    await submitter.stop();
    expect(await sms()).to.include({ status: 'failed_send', reason: 'upstream_outcome_unknown' });
    expect((await apiOf(judge).get(`/upstreams/${upstreamId}`)).body.month).to.include({ segments: 0 });

    // However long the routers go on looking, it is never submitted again.
    clock.advance(SUBMIT_WATCHDOG_MS * 2);
    await look([judge]);
    await look([judge]);
    expect(smsc.submits).to.have.length(1);
    expect((await apiOf(judge).get(`/sms/${smsId}/attempts`)).body.data).to.have.length(1);
  });
});

// One node: the SMSC never answers, and the link gives up waiting for the submit_sm_resp (after its
// response timeout, 10 s). The SMSC may have taken it: the SMS is neither tried again nor passed to
// the next rule, and the watchdog settles it once the clock passes the limit.
describe('upstream routes: a submit_sm the SMSC never answers, on one node', function () {
  this.timeout(40_000);
  const clock = new ManualClock(Date.parse('2026-11-29T12:00:00Z'));
  const fx = useGateway({ clock, config: { webhooks: webhookConfig({ allowedHosts: ['127.0.0.1'] }) } });

  it('is never submitted again, through it or the next rule, and fails as upstream_outcome_unknown past the limit', async () => {
    const smsc = await TestSmsc.start();
    const backup = await TestSmsc.start();
    smsc.answer = () => 'hold';
    try {
      const ids: string[] = [];
      for (const [name, server] of [['silent', smsc], ['backup', backup]] as const) {
        const created = await fx.tenant.api.post('/upstreams', { name, kind: 'smpp', host: '127.0.0.1', port: server.port, system_id: 'gateway', password: server.password });
        expect(created.status, JSON.stringify(created.body)).to.equal(201);
        ids.push(created.body.id);
      }
      const [silent] = ids as [string, string];
      await eventually('both bound', () => ids.every((id) => linkOf(fx.gateway, id)?.status.state === 'ready'));
      const routes = await fx.tenant.api.request('PUT', '/routes', { routes: ids.map((target) => ({ target })) });
      expect(routes.status, JSON.stringify(routes.body)).to.equal(200);

      const sent = await fx.tenant.api.post('/sms', { phone: PHONE, message: 'Your code is 123456' });
      expect(sent.status, JSON.stringify(sent.body)).to.equal(201);
      const smsId = sent.body.id as string;
      await eventually('the SMSC holds the submit_sm', () => smsc.held.length === 1);
      // The link stops waiting for the answer.
      await eventually('the link gave up waiting', () => linkOf(fx.gateway, silent)?.outstanding === 0, 15_000);
      const sms = async () => (await fx.tenant.api.get(`/sms/${smsId}`)).body as { status: string; reason: string | null };
      expect(await sms()).to.include({ status: 'pending', reason: null });

      clock.advance(SUBMIT_WATCHDOG_MS + 1_000);
      await eventually('the watchdog\'s verdict', async () => {
        await fx.gateway.services.upstreamRouter.pass();
        return (await sms()).status === 'failed_send';
      });
      expect(await sms()).to.include({ status: 'failed_send', reason: 'upstream_outcome_unknown' });
      const attempts = (await fx.tenant.api.get(`/sms/${smsId}/attempts`)).body.data as { result: string; error_code: string | null }[];
      expect(attempts.map((attempt) => [attempt.result, attempt.error_code])).to.deep.equal([['failed', 'upstream_outcome_unknown']]);
      expect(smsc.submits, 'submitted to the silent SMSC once').to.have.length(1);
      expect(backup.submits, 'not passed to the next rule').to.have.length(0);
    } finally {
      await smsc.stop();
      await backup.stop();
    }
  });
});
