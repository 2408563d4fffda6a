// Admission control: the work in flight is bounded (HTTP_MAX_IN_FLIGHT), and past the bound the
// gateway answers 503 overloaded with Retry-After at once, so accepted requests keep a short
// latency.
import { expect } from 'chai';
import { Admission } from '../../src/common/admission.ts';
import { ManualClock } from '../../src/common/clock.ts';
import { useGateway } from '../support/use-gateway.ts';
import { TEST_METRICS_TOKEN } from '../support/metrics.ts';
import type { Reply } from '../support/tenant.ts';
import { eventually } from '../support/eventually.ts';

function expectOverloaded(reply: Reply): void {
  expect(reply.status, JSON.stringify(reply.body)).to.equal(503);
  expect(reply.body.error.code).to.equal('overloaded');
  expect(reply.headers.get('retry-after')).to.equal('1');
}

const SMS = { phone: '+79161234567', message: 'admission' };

describe('admission control of the HTTP API', () => {
  const fx = useGateway({ config: { admission: { maxInFlight: 2, maxEventLoopDelayMs: 0, targetLatencyMs: 0 } } });
  let held = 0;
  afterEach(() => {
    for (; held > 0; held--) fx.gateway.services.admission.leave();
  });

  /** Takes one place in flight as a request being worked on would, until the test ends. */
  function holdOnePlace(): void {
    expect(fx.gateway.services.admission.tryEnter()).to.equal(undefined);
    held++;
  }

  it('answers 503 overloaded with Retry-After once the bound of requests in flight is reached', async () => {
    holdOnePlace();
    holdOnePlace();
    expectOverloaded(await fx.tenant.api.post('/sms', SMS));
    // The legacy family, at the server root, shares the same bound.
    expectOverloaded(await fx.tenant.root.get('/sms'));
  });

  it('serves requests again as soon as a place is free, and accepted ones are not affected', async () => {
    holdOnePlace();
    holdOnePlace();
    expectOverloaded(await fx.tenant.api.post('/sms', SMS));
    fx.gateway.services.admission.leave();
    held--;
    const accepted = await fx.tenant.api.post('/sms', SMS);
    expect(accepted.status).to.equal(201);
  });

  it('never refuses the health, readiness and metrics endpoints; readiness says the node is refusing work', async () => {
    holdOnePlace();
    holdOnePlace();
    for (const path of ['/healthz', '/metrics']) {
      const response = await fetch(`${fx.baseUrl}${path}`, { headers: { authorization: `Bearer ${TEST_METRICS_TOKEN}` } });
      expect(response.status, path).to.equal(200);
    }
    const ready = await fetch(`${fx.baseUrl}/readyz`);
    const body = (await ready.json()) as { status: string; checks: Record<string, string> };
    expect(ready.status).to.equal(503);
    expect(body.status).to.equal('not_ready');
    expect(body.checks.admission).to.equal('failing');
    expect(body.checks.database, 'answered by readiness itself, not refused').to.equal('ok');
  });

  it('counts the refusals by reason in the metrics', async () => {
    holdOnePlace();
    holdOnePlace();
    const before = fx.gateway.services.metrics.value('http_requests_refused_total', { reason: 'in_flight' });
    await fx.tenant.api.post('/sms', SMS);
    expect(fx.gateway.services.metrics.value('http_requests_refused_total', { reason: 'in_flight' })).to.equal(before + 1);
  });
});

describe('admission control on event-loop delay', () => {
  it('refuses new work while the process stays saturated, not after one long block, and admits it again after', async () => {
    const admission = new Admission({ maxInFlight: 100, maxEventLoopDelayMs: 50, targetLatencyMs: 0 });
    const block = (ms: number) => {
      const until = performance.now() + ms;
      while (performance.now() < until);
    };
    const turn = () => new Promise((resolve) => setTimeout(resolve, 0));
    try {
      expect(admission.tryEnter()).to.equal(undefined);
      admission.leave();
      // One 400 ms block (a start, a large bulk request): the sampler, due during it, sees it.
      block(400);
      await turn();
      expect(admission.current.eventLoopDelayMs).to.be.above(50);
      expect(admission.tryEnter()).to.equal(undefined);
      admission.leave();
      // Sustained saturation, as a backlog of synchronous work makes it: 100 ms blocks back to back.
      const started = performance.now();
      while (!admission.overloaded() && performance.now() - started < 5_000) {
        block(100);
        await turn();
      }
      expect(admission.tryEnter()).to.equal('event_loop');
      expect(admission.refusedCount('event_loop')).to.equal(1);
      // Once the loop is idle again, the next window admits.
      await eventually('the event loop no longer overloaded', () => !admission.overloaded());
      expect(admission.tryEnter()).to.equal(undefined);
    } finally {
      admission.stop();
    }
  });
});

describe('the adaptive in-flight limit (a manual clock)', () => {
  const clock = new ManualClock(0);
  const limits = { maxInFlight: 64, maxEventLoopDelayMs: 0, targetLatencyMs: 250 };
  const admissions: Admission[] = [];
  afterEach(() => {
    for (const admission of admissions.splice(0)) admission.stop();
  });
  function admission(): Admission {
    const made = new Admission(limits, () => clock.now());
    admissions.push(made);
    return made;
  }

  /** `count` requests that each take `ms` on the clock, one after the other, then the window closes. */
  function window(admission: Admission, count: number, ms: number): void {
    for (let i = 0; i < count; i++) {
      const ticket = admission.admit();
      if (typeof ticket === 'string') throw new Error(`refused: ${ticket}`);
      clock.advance(ms);
      ticket.leave();
    }
    admission.tick();
  }

  /** Windows of slow requests until the limit is at its floor. */
  function badEpisode(admission: Admission): void {
    for (let i = 0; i < 40; i++) window(admission, 3, 2_000);
    expect(admission.current.limit).to.equal(4);
  }

  it('when a window\'s requests took longer than the target on average, then the limit shrinks by a fifth; one slow request among fast ones does not', () => {
    const gate = admission();
    expect(gate.current.limit).to.equal(64);
    const slow = gate.admit();
    if (typeof slow === 'string') throw new Error(slow);
    clock.advance(2_000);
    slow.leave();
    window(gate, 20, 20);
    expect(gate.current.limit).to.equal(64);
    window(gate, 20, 400);
    expect(gate.current.limit).to.equal(51);
    window(gate, 20, 400);
    expect(gate.current.limit).to.equal(40);
  });

  it('when requests are fast again after a bad episode, then the limit grows back to HTTP_MAX_IN_FLIGHT within a few windows, though nothing was refused', () => {
    const gate = admission();
    badEpisode(gate);
    const windows: number[] = [];
    while (gate.current.limit < 64 && windows.length < 20) {
      window(gate, 3, 10);
      windows.push(gate.current.limit);
    }
    expect(gate.current.limit).to.equal(64);
    expect(windows.length, `limits per window: ${windows.join(', ')}`).to.be.at.most(8);
    expect(gate.refusedCount('in_flight')).to.equal(0);
  });

  it('when the gateway is idle after a bad episode, then the limit grows back too', () => {
    const gate = admission();
    badEpisode(gate);
    for (let i = 0; i < 8; i++) {
      clock.advance(250);
      gate.tick();
    }
    expect(gate.current.limit).to.equal(64);
  });

  it('when requests are under way but none ended in a window, then the limit holds: no sign either way', () => {
    const gate = admission();
    window(gate, 5, 1_000);
    expect(gate.current.limit).to.equal(51);
    expect(typeof gate.admit()).to.not.equal('string');
    clock.advance(250);
    gate.tick();
    expect(gate.current.limit).to.equal(51);
  });

  it('when the limit turns requests away while requests are fast, then it grows by a quarter a window', () => {
    const gate = admission();
    window(gate, 10, 1_000);
    window(gate, 10, 1_000);
    expect(gate.current.limit).to.equal(40);
    const tickets = [];
    for (let i = 0; i < 40; i++) tickets.push(gate.admit());
    expect(gate.admit()).to.equal('in_flight');
    clock.advance(20);
    for (const ticket of tickets) if (typeof ticket !== 'string') ticket.leave();
    gate.tick();
    // 64 x 0.8 x 0.8 = 40.96, shown as 40; a quarter more: 51.2.
    expect(gate.current.limit).to.equal(51);
  });

  it('when a request waits for its client (suspended), then it holds no place, and its waiting time is not its latency', () => {
    const gate = admission();
    const slowBody = gate.admit();
    if (typeof slowBody === 'string') throw new Error(slowBody);
    slowBody.suspend();
    expect(gate.current.inFlight).to.equal(0);
    clock.advance(60_000);
    expect(slowBody.resume()).to.equal(undefined);
    expect(gate.current.inFlight).to.equal(1);
    clock.advance(10);
    slowBody.leave();
    gate.tick();
    expect(gate.current.limit, 'a 10 ms request, not a 60 s one').to.equal(64);
    expect(gate.current.inFlight).to.equal(0);
  });

  it('when a suspended request ends without resuming (a body deadline), then it gives nothing back twice and teaches nothing', () => {
    const gate = admission();
    const ticket = gate.admit();
    if (typeof ticket === 'string') throw new Error(ticket);
    ticket.suspend();
    clock.advance(15_000);
    ticket.leave();
    ticket.leave();
    expect(gate.current.inFlight).to.equal(0);
    gate.tick();
    expect(gate.current.limit).to.equal(64);
  });

  it('when a request resumes while the limit is full, then it is refused like a new one', () => {
    const gate = new Admission({ maxInFlight: 1, maxEventLoopDelayMs: 0, targetLatencyMs: 0 }, () => clock.now());
    admissions.push(gate);
    const waiting = gate.admit();
    if (typeof waiting === 'string') throw new Error(waiting);
    waiting.suspend();
    expect(typeof gate.admit()).to.not.equal('string');
    expect(waiting.resume()).to.equal('in_flight');
  });

  it('never goes below 4 however slow the requests are, nor above HTTP_MAX_IN_FLIGHT', () => {
    const gate = admission();
    for (let i = 0; i < 40; i++) window(gate, 5, 5_000);
    expect(gate.current.limit).to.equal(4);
    for (let i = 0; i < 100; i++) window(gate, 4, 1);
    expect(gate.current.limit).to.equal(64);
  });

  it('says it is busy while it refuses, and for two windows after', () => {
    const gate = new Admission({ maxInFlight: 1, maxEventLoopDelayMs: 0, targetLatencyMs: 0 }, () => clock.now());
    admissions.push(gate);
    expect(gate.busy()).to.equal(false);
    const ticket = gate.admit();
    expect(gate.busy(), 'at the limit').to.equal(true);
    expect(gate.admit()).to.equal('in_flight');
    if (typeof ticket !== 'string') ticket.leave();
    expect(gate.busy(), 'refused a moment ago').to.equal(true);
    clock.advance(500);
    expect(gate.busy()).to.equal(false);
  });
});
