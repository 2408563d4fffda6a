// A Twilio link's state from what its requests came to (link-health.ts), and its pace
// (pacing.ts): connecting until the first answer, down after refused credentials or failures in
// a row with a probe once the backoff has passed, throttled for a Retry-After; at most
// maxConcurrent requests at once, starts spaced by the throughput.
import { expect } from 'chai';
import type { LinkStatus } from '../../src/modules/upstreams/links/link.ts';
import { FAILURES_TO_DOWN, LinkHealth } from '../../src/modules/upstreams/links/twilio/link-health.ts';
import { Pacer, type Release } from '../../src/modules/upstreams/links/twilio/pacing.ts';

function health() {
  let now = 1_000_000;
  const changes: LinkStatus[] = [];
  const link = new LinkHealth((status) => changes.push(status), () => now);
  return { link, changes, advance: (ms: number) => (now += ms), states: () => changes.map((change) => change.state) };
}

describe('Twilio link health', () => {
  it('is connecting until the first answer, ready after it; failures below the bound change nothing', () => {
    const { link, states } = health();
    expect(link.status).to.include({ state: 'connecting', detail: null });
    for (let i = 1; i < FAILURES_TO_DOWN; i++) link.failing('the provider refused the connection');
    expect(link.status.state).to.equal('connecting');
    link.working();
    expect(states()).to.deep.equal(['ready']);
    expect(link.refusal(true)).to.equal(undefined);
  });

  it('goes down after failures in a row, answers later at once, and lets one probe out once the backoff passed', () => {
    const { link, advance, states } = health();
    link.working();
    for (let i = 0; i < FAILURES_TO_DOWN; i++) link.failing('the provider did not answer in time');
    expect(link.status).to.include({ state: 'down', detail: `the provider failed ${FAILURES_TO_DOWN} requests in a row; the last: the provider did not answer in time` });
    expect(link.refusal(true)).to.deep.include({ accepted: false, retry: 'later', code: 'down', retryAfterMs: 1000 });
    advance(1000);
    expect(link.refusal(true), 'the probe').to.equal(undefined);
    expect(link.refusal(true), 'a second one while the probe is out').to.include({ retry: 'later', code: 'down' });
    link.failing('the provider refused the connection');
    expect(link.refusal(true)).to.include({ retryAfterMs: 2000 });
    advance(2000);
    expect(link.refusal(true)).to.equal(undefined);
    link.working();
    expect(link.status).to.include({ state: 'ready', detail: null });
    expect(states()).to.deep.equal(['ready', 'down', 'down', 'ready']);
  });

  it('refused credentials take it down at once: never, until a probe after a minute', () => {
    const { link, advance } = health();
    link.credentialsRefused('20003');
    expect(link.status).to.include({ state: 'down', detail: 'the provider refused the credentials (check accountSid and authToken)' });
    expect(link.refusal(true)).to.include({ retry: 'never', code: '20003' });
    advance(60_000);
    expect(link.refusal(true)).to.equal(undefined);
    link.credentialsRefused('20003');
    advance(60_000);
    expect(link.refusal(true), 'the backoff doubled').to.include({ retry: 'never' });
  });

  it('a refused destination stays down, never, whatever answers come', () => {
    const { link, advance } = health();
    link.destinationRefused('url points at a private address');
    link.working();
    advance(3_600_000);
    expect(link.refusal(true)).to.deep.equal({ accepted: false, retry: 'never', code: 'destination_refused', detail: 'url points at a private address' });
    expect(link.status.state).to.equal('down');
  });

  it('is throttled for the Retry-After, then back to what it was; a success meanwhile waits behind it', async () => {
    const { link, states } = health();
    link.throttled(30, 'Too Many Requests');
    expect(link.status).to.include({ state: 'throttled', detail: 'Too Many Requests' });
    link.working();
    expect(link.status.state).to.equal('throttled');
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(states()).to.deep.equal(['throttled', 'ready']);
    link.close();
    link.working();
    expect(link.status.state).to.equal('closed');
    expect(link.refusal(true)).to.include({ retry: 'later', code: 'closed' });
  });
});

describe('Twilio link pace', () => {
  it('lets at most maxConcurrent out at once, in the order they came', async () => {
    const pacer = new Pacer(2, 10_000);
    const order: number[] = [];
    const held: Release[] = [];
    const all = [1, 2, 3, 4, 5].map((n) =>
      pacer.acquire().then((release) => {
        order.push(n);
        held.push(release!);
      }),
    );
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(order).to.deep.equal([1, 2]);
    expect(pacer.queued).to.equal(3);
    held.shift()!();
    held[0]!();
    held[0]!(); // releasing twice frees one place, not two
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(order).to.deep.equal([1, 2, 3, 4]);
    pacer.close();
    await Promise.race([Promise.all(all), new Promise((resolve) => setTimeout(resolve, 50))]);
    expect(order).to.have.length(5, 'a closed pacer answers its waiters');
    expect(await pacer.acquire()).to.equal(undefined);
  });

  it('spaces the starts by the throughput, and starts none before a pause ends', async () => {
    const pacer = new Pacer(100, 50);
    const started = Date.now();
    const times: number[] = [];
    await Promise.all(Array.from({ length: 6 }, () => pacer.acquire().then((release) => (times.push(Date.now() - started), release!()))));
    // 6 starts at 20 ms apart: the last at 100 ms or later.
    expect(times[5]).to.be.at.least(95);
    pacer.pauseUntil(Date.now() + 80);
    const paused = Date.now();
    await pacer.acquire();
    expect(Date.now() - paused).to.be.at.least(75);
    pacer.close();
  });

  it('holds a fast link to its own rate, not to one start per timer tick', async () => {
    const pacer = new Pacer(1_000, 100_000);
    const started = Date.now();
    await Promise.all(Array.from({ length: 300 }, () => pacer.acquire().then((release) => release!())));
    // Waiting a millisecond per start would take 300 ms.
    expect(Date.now() - started).to.be.below(150);
    pacer.close();
  });
});
