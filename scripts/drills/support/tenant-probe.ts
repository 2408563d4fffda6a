// What an ordinary tenant sees while a drill's hostile client does its worst: a few workers that
// call the API one request after another (GET /devices and POST /sms in turn) from their own
// client address, and count every answer that is not a success, with the latency of each call.
// The hostile drills print this for a baseline, measured in the same run before the attack, and
// for the attack itself.
import { Agent, request } from 'node:http';

export interface ProbeOptions {
  /** http://127.0.0.1:port */
  baseUrl: string;
  key: string;
  /** Calls under way at once. */
  concurrency: number;
  /** The local address the calls come from (another client than the attacker). */
  from: string;
  /** A call taking longer than this counts as refused: the client would have given up. */
  timeoutMs?: number;
}

export interface ProbeResult {
  calls: number;
  /** Calls not answered 2xx, by status ("timeout", "error" for no answer). */
  refused: Map<string, number>;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

export function refusedTotal(result: ProbeResult): number {
  return [...result.refused.values()].reduce((sum, n) => sum + n, 0);
}

export function describeProbe(result: ProbeResult): string {
  const refused = refusedTotal(result);
  const why = refused === 0 ? '' : ` (${[...result.refused].map(([status, n]) => `${n}x ${status}`).join(', ')})`;
  return `${result.calls} calls, ${refused} refused${why}, p50 ${result.p50Ms.toFixed(1)} ms, p99 ${result.p99Ms.toFixed(1)} ms, max ${result.maxMs.toFixed(0)} ms`;
}

/** Calls until `durationMs` has passed, or until `calls` calls were made when given. */
export async function probe(options: ProbeOptions, until: { durationMs?: number; calls?: number }): Promise<ProbeResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: options.concurrency, localAddress: options.from });
  const latencies: number[] = [];
  const refused = new Map<string, number>();
  const deadline = until.durationMs === undefined ? Infinity : Date.now() + until.durationMs;
  let started = 0;
  const more = () => Date.now() < deadline && (until.calls === undefined || started < until.calls);
  const worker = async () => {
    while (more()) {
      const n = started++;
      const begun = performance.now();
      const status = await call(options, agent, n);
      latencies.push(performance.now() - begun);
      if (!/^2\d\d$/.test(status)) refused.set(status, (refused.get(status) ?? 0) + 1);
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return { calls: latencies.length, refused, p50Ms: at(0.5), p99Ms: at(0.99), maxMs: latencies.at(-1) ?? 0 };
}

function call(options: ProbeOptions, agent: Agent, n: number): Promise<string> {
  const post = n % 2 === 1;
  const body = post ? JSON.stringify({ phone: '+79161234567', message: `probe ${n}` }) : undefined;
  return new Promise((resolve) => {
    const req = request(
      `${options.baseUrl}/api/ext/v1/${post ? 'sms' : 'devices'}`,
      {
        method: post ? 'POST' : 'GET',
        agent,
        headers: { authorization: `Bearer ${options.key}`, ...(body ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) } : {}) },
        timeout: options.timeoutMs ?? 10_000,
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(String(res.statusCode)));
        res.on('error', () => resolve('error'));
      },
    );
    req.on('timeout', () => {
      req.destroy();
      resolve('timeout');
    });
    req.on('error', () => resolve('error'));
    req.end(body);
  });
}
