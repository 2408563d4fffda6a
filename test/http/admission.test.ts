// Admission control (issue 10, item 3: "bound the work in flight ... and past the bound answer
// 503 with Retry-After at once ... so accepted requests keep a short latency").
import { request, type ClientRequest } from 'node:http';
import { expect } from 'chai';
import { Admission } from '../../src/common/admission.ts';
import { useGateway } from '../support/use-gateway.ts';
import type { Reply } from '../support/tenant.ts';

function expectOverloaded(reply: Reply): void {
  expect(reply.status, JSON.stringify(reply.body)).to.equal(503);
  expect(reply.body.error.code).to.equal('overloaded');
  expect(reply.headers.get('retry-after')).to.equal('1');
}

const SMS = { phone: '+79161234567', message: 'admission' };

describe('admission control of the HTTP API', () => {
  const fx = useGateway({ config: { admission: { maxInFlight: 2, maxEventLoopDelayMs: 0, targetLatencyMs: 0 } } });
  const held: ClientRequest[] = [];
  afterEach(() => {
    for (const req of held.splice(0)) req.destroy();
  });

  /** Starts a POST whose body never finishes: it holds one place in flight until destroyed. */
  async function holdOnePlace(): Promise<void> {
    const before = fx.gateway.services.admission.current.inFlight;
    const req = request(`${fx.baseUrl}/api/ext/v1/sms`, {
      method: 'POST',
      headers: { authorization: `Bearer ${fx.tenant.key}`, 'content-type': 'application/json', 'content-length': '1000' },
    });
    req.on('error', () => {});
    req.write('{"phone":');
    held.push(req);
    // The gateway takes the place when the headers arrive; wait for it to have done so.
    while (fx.gateway.services.admission.current.inFlight === before) await new Promise((resolve) => setImmediate(resolve));
  }

  it('answers 503 overloaded with Retry-After once the bound of requests in flight is reached', async () => {
    await holdOnePlace();
    await holdOnePlace();
    expectOverloaded(await fx.tenant.api.post('/sms', SMS));
    // The legacy family, at the server root, shares the same bound.
    expectOverloaded(await fx.tenant.root.get('/sms'));
  });

  it('serves requests again as soon as a place is free, and accepted ones are not affected', async () => {
    await holdOnePlace();
    await holdOnePlace();
    expectOverloaded(await fx.tenant.api.post('/sms', SMS));
    held.pop()!.destroy();
    while (fx.gateway.services.admission.current.inFlight >= 2) await new Promise((resolve) => setImmediate(resolve));
    const accepted = await fx.tenant.api.post('/sms', SMS);
    expect(accepted.status).to.equal(201);
  });

  it('never refuses the health, readiness and metrics endpoints', async () => {
    await holdOnePlace();
    await holdOnePlace();
    for (const path of ['/healthz', '/readyz', '/metrics']) {
      const response = await fetch(`${fx.baseUrl}${path}`);
      expect(response.status, path).to.equal(200);
    }
  });

  it('counts the refusals by reason in the metrics', async () => {
    await holdOnePlace();
    await holdOnePlace();
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
      while (admission.overloaded()) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(admission.tryEnter()).to.equal(undefined);
    } finally {
      admission.stop();
    }
  });
});

describe('the adaptive in-flight limit', () => {
  /** Ends `count` requests that each took `ms`, then closes the window. */
  function window(admission: Admission, count: number, ms: number): void {
    for (let i = 0; i < count; i++) {
      admission.tryEnter();
      admission.leave(ms);
    }
    admission.tick();
  }

  it('shrinks by a fifth after a window whose requests took longer than the target on average, not for one slow request', () => {
    const admission = new Admission({ maxInFlight: 64, maxEventLoopDelayMs: 0, targetLatencyMs: 250 });
    try {
      expect(admission.current.limit).to.equal(64);
      // One 2 s request among fast ones: the window's average is under the target.
      admission.tryEnter();
      admission.leave(2_000);
      window(admission, 20, 20);
      expect(admission.current.limit).to.equal(64);
      window(admission, 20, 400);
      expect(admission.current.limit).to.equal(51);
      window(admission, 20, 400);
      expect(admission.current.limit).to.equal(40);
    } finally {
      admission.stop();
    }
  });

  it('grows back by a tenth a window while requests are fast and the limit turns some away, and refuses past it', () => {
    const admission = new Admission({ maxInFlight: 64, maxEventLoopDelayMs: 0, targetLatencyMs: 250 });
    try {
      window(admission, 10, 1_000);
      window(admission, 10, 1_000);
      expect(admission.current.limit).to.equal(40);
      // Fast, but nothing refused: the limit does not bind, so it stays.
      window(admission, 10, 20);
      expect(admission.current.limit).to.equal(40);
      // Fill it: the next request is refused at once, and the window ends fast.
      for (let i = 0; i < 40; i++) expect(admission.tryEnter()).to.equal(undefined);
      expect(admission.tryEnter()).to.equal('in_flight');
      for (let i = 0; i < 40; i++) admission.leave(20);
      admission.tick();
      expect(admission.current.limit).to.be.within(44, 45);
    } finally {
      admission.stop();
    }
  });

  it('never goes below 4 however slow the requests are, nor above HTTP_MAX_IN_FLIGHT', () => {
    const admission = new Admission({ maxInFlight: 64, maxEventLoopDelayMs: 0, targetLatencyMs: 100 });
    try {
      for (let i = 0; i < 40; i++) window(admission, 5, 5_000);
      expect(admission.current.limit).to.equal(4);
      for (let i = 0; i < 100; i++) {
        while (!admission.tryEnter()) {
          // fill until refused
        }
        for (let j = 0; j < admission.current.inFlight; j++) admission.leave(1);
        admission.tick();
      }
      expect(admission.current.limit).to.equal(64);
    } finally {
      admission.stop();
    }
  });
});
