// What the machine did during one phase of fleet-latency.ts, to tell a gateway that pauses from a
// machine that is short of CPU: the gateway's event-loop delay over the phase (p99 and max, from
// its /metrics, whose histogram starts afresh at each scrape), the gateway's CPU and garbage
// collection time, the CPU of the PostgreSQL backends of the benchmark's database, and how busy
// all the machine's cores were (other sessions' work included).
import { cpus } from 'node:os';
import { readFileSync } from 'node:fs';
import { CpuOfProcesses, METRICS_SCRAPE_HEADERS, processCpuMs } from './support.ts';

export interface PhaseLoad {
  /** The gateway's event-loop delay over the phase, ms. */
  loopDelayP99Ms: number;
  loopDelayMaxMs: number;
  /** The gateway's CPU and its garbage collector's time, as shares of the phase's wall time. */
  gatewayCpu: number;
  gcShare: number;
  postgresCpu: number;
  /** Every core's busy time, as a share of all of them. */
  machineBusy: number;
}

interface Reading {
  at: number;
  gatewayMs: number;
  gcMs: number;
  postgresMs: number;
  busyTicks: number;
  totalTicks: number;
  loopDelayP99Ms: number;
  loopDelayMaxMs: number;
}

/** Reads the figures at the start and at the end of a phase; `end` gives the phase's. */
export class PhaseLoadMeter {
  private readonly postgres: CpuOfProcesses;

  constructor(
    private readonly gatewayUrl: string,
    private readonly gatewayPid: number,
    databaseName: string,
  ) {
    this.postgres = new CpuOfProcesses('postgres', databaseName);
  }

  async start(): Promise<() => Promise<PhaseLoad>> {
    const before = await this.read();
    return async () => {
      const after = await this.read();
      const wallMs = after.at - before.at;
      const share = (ms: number) => ms / wallMs;
      return {
        loopDelayP99Ms: after.loopDelayP99Ms,
        loopDelayMaxMs: after.loopDelayMaxMs,
        gatewayCpu: share(after.gatewayMs - before.gatewayMs),
        gcShare: share(after.gcMs - before.gcMs),
        postgresCpu: share(after.postgresMs - before.postgresMs),
        machineBusy: (after.busyTicks - before.busyTicks) / Math.max(1, after.totalTicks - before.totalTicks),
      };
    };
  }

  stop(): void {
    this.postgres.stop();
  }

  private async read(): Promise<Reading> {
    const response = await fetch(`${this.gatewayUrl}/metrics`, { headers: METRICS_SCRAPE_HEADERS });
    const page = await response.text();
    const { busy, total } = machineTicks();
    return {
      at: performance.now(),
      gatewayMs: processCpuMs(this.gatewayPid) ?? 0,
      gcMs: sampleSum(page, 'nodejs_gc_duration_seconds_sum') * 1000,
      postgresMs: this.postgres.totalMs(),
      busyTicks: busy,
      totalTicks: total,
      loopDelayP99Ms: sampleSum(page, 'nodejs_eventloop_lag_p99_seconds') * 1000,
      loopDelayMaxMs: sampleSum(page, 'nodejs_eventloop_lag_max_seconds') * 1000,
    };
  }
}

/** The sum of a metric's samples on a /metrics page, whatever their labels. */
function sampleSum(page: string, name: string): number {
  let sum = 0;
  for (const match of page.matchAll(new RegExp(`^${name}(?:\\{[^}]*\\})? ([0-9.eE+-]+)$`, 'gm'))) sum += Number(match[1]);
  return sum;
}

/** All cores' ticks from /proc/stat: busy (neither idle nor waiting for I/O) and in all. */
function machineTicks(): { busy: number; total: number } {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    const total = fields.reduce((sum, n) => sum + n, 0);
    const idle = (fields[3] ?? 0) + (fields[4] ?? 0);
    return { busy: total - idle, total };
  } catch {
    // Not Linux: the share reads 0.
    return { busy: 0, total: cpus().length };
  }
}
