// PeriodicRun (src/common/periodic-run.ts) on its own: a run asked for while one is under way
// joins it, stop() waits for the run under way, and with a logger a failed run is logged once
// (a database outage as a warning when it begins) and still fails for whoever asked for it.
import { expect } from 'chai';
import { createLogger } from '../../src/common/logger.ts';
import { PeriodicRun } from '../../src/common/periodic-run.ts';
import { rejection } from '../support/rejection.ts';

/** A promise the test settles when it chooses. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((yes, no) => ((resolve = yes), (reject = no)));
  return { promise, resolve, reject };
}

/** A logger whose JSON lines the test reads, as { level, msg }. */
function recordingLogger() {
  const lines: { level: number; msg: string }[] = [];
  const logger = createLogger('info', { write: (line: string) => void lines.push(JSON.parse(line) as { level: number; msg: string }) }, undefined, 'json');
  return { logger, lines };
}

const HOUR = 3600 * 1000;

describe('PeriodicRun', () => {
  it('joins a run asked for while one is under way, and runs again once it ended', async () => {
    let calls = 0;
    let current = deferred<number>();
    const run = new PeriodicRun(() => (calls++, current.promise), { everyMs: HOUR, runAtStart: false });
    const first = run.runOnce();
    const second = run.runOnce();
    expect(second).to.equal(first);
    current.resolve(7);
    expect(await second).to.equal(7);
    current = deferred<number>();
    const third = run.runOnce();
    current.resolve(8);
    expect(await third).to.equal(8);
    expect(calls).to.equal(2);
  });

  it('starts the first run at once with runAtStart, and stop() waits for it', async () => {
    const current = deferred<void>();
    let started = false;
    const run = new PeriodicRun(() => ((started = true), current.promise), { everyMs: HOUR, runAtStart: true });
    run.start();
    expect(started).to.equal(true);
    let stopped = false;
    const stopping = run.stop().then(() => (stopped = true));
    // Every callback queued so far has run: a stop that did not wait would have resolved.
    await new Promise((resolve) => setImmediate(resolve));
    expect(stopped).to.equal(false);
    current.resolve();
    await stopping;
    expect(stopped).to.equal(true);
  });

  it('without runAtStart, start() runs nothing before the first period', () => {
    let started = false;
    const run = new PeriodicRun(async () => void (started = true), { everyMs: HOUR, runAtStart: false });
    run.start();
    expect(started).to.equal(false);
    return run.stop();
  });

  it('logs a failed run as an error and still rejects it; a database outage is a warning, once', async () => {
    const { logger, lines } = recordingLogger();
    let failure: Error = new Error('a constraint broke');
    const run = new PeriodicRun(() => Promise.reject(failure), {
      everyMs: HOUR,
      runAtStart: false,
      failures: { logger, whileDatabaseDown: 'work retried at the next run', message: 'the work failed' },
    });
    expect((await rejection(run.runOnce())).message).to.equal('a constraint broke');
    failure = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    expect((await rejection(run.runOnce())).message).to.equal('connect ECONNREFUSED');
    expect((await rejection(run.runOnce())).message).to.equal('connect ECONNREFUSED');
    expect(lines.map((line) => line.msg)).to.deep.equal(['the work failed', 'database unreachable: work retried at the next run']);
  });
});
