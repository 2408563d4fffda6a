// `npm run bench`: every benchmark scenario, one after the other, each in its own process, each
// printing its figures beside a baseline measured in the same run. The tables are printed again
// together at the end. Everything targets 127.0.0.1 and stops by itself; the whole run is bounded.
import { spawn } from 'node:child_process';
import { cpus, loadavg, totalmem } from 'node:os';
import { REPO_ROOT } from './support.ts';

const SCENARIOS: [title: string, script: string, timeoutMs: number][] = [
  ['1. Accept rate', 'scripts/bench/accept-rate.ts', 120_000],
  ['2. Dispatch latency', 'scripts/bench/dispatch-latency.ts', 150_000],
  ['3. Fleet', 'scripts/bench/fleet.ts', 420_000],
  ['3b. Fleet: dispatch latency beside it', 'scripts/bench/fleet-latency.ts', 420_000],
  ['4. Status ingestion', 'scripts/bench/status-ingestion.ts', 240_000],
  ['5a. Legacy search', 'scripts/bench/legacy-search.ts', 300_000],
  ['5b. Webhook delivery', 'scripts/bench/webhooks.ts', 150_000],
  // PACING_SECONDS (default 180) of pacing, plus setup.
  ['6. Pacing', 'scripts/bench/pacing.ts', 300_000],
  ['7. Failover', 'scripts/bench/failover.ts', 180_000],
  // 4 runner/database pairs x (1 + STARTUP_RUNS) starts, each idling STARTUP_IDLE_MS.
  ['8. Start time and idle memory', 'scripts/bench/startup.ts', 420_000],
  // Probe, then two open-loop runs of OVERLOAD_SECONDS (default 20), each warmed up and drained.
  ['9. Overload', 'scripts/bench/overload.ts', 420_000],
  // Registration of 10,000 devices, then the fleet on 1 node and on 2 (each warmed up, settled, measured).
  ['10a. Several nodes: fleet', 'scripts/bench/cluster-fleet.ts', 420_000],
  // Three series one at a time, each stopped after 100 s even if every task waited for a sweep, and two batches.
  ['10b. Several nodes: dispatch latency', 'scripts/bench/cluster-latency.ts', 420_000],
  // Subscribe storms at 1,000 and 10,000 devices for four stores, per-task session cost, Redis unreachable.
  ['10c. Several nodes: broker persistence', 'scripts/bench/broker-persistence.ts', 300_000],
  // 2,000 wake-ups each way: Redis PUBLISH -> SUBSCRIBE, PostgreSQL NOTIFY -> LISTEN.
  ['10d. Several nodes: wake-up channel', 'scripts/bench/wake-up.ts', 120_000],
  // A baseline, then 3,000 and 20,000 SMS at 300/s with one webhook, 3,000 with three, and 20,000
  // held back then drained: each posted, answered by the phones and every webhook delivered.
  ['11. The whole path at speed', 'scripts/bench/whole-path.ts', 900_000],
  // 1,000 simulated phones texting each other: an idle window, then three canary rounds, each timed
  // until its last probe ends and followed by a window as long.
  ['14. Canary rounds', 'scripts/bench/canary-rounds.ts', 1_300_000],
  // One SmppLink submitting 200 SMS/s for 20 s to an SMSC in a child process, beside the smpp package's own client.
  ['15. Upstream SMPP link', 'scripts/bench/smpp-upstream.ts', 180_000],
  // POST /sms at 200/s for 20 s to a gateway whose routes send every SMS through one SMPP bind.
  ['16. Upstream routes, whole path', 'scripts/bench/upstream-route.ts', 240_000],
];

const only = process.argv.slice(2);
const started = Date.now();
const tables: string[] = [];
process.stdout.write(`SMS gateway benchmarks, ${new Date().toISOString()}, ${cpus().length} cores (${cpus()[0]?.model ?? '?'}), ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}\n`);

for (const [title, script, timeoutMs] of SCENARIOS) {
  if (only.length > 0 && !only.some((name) => script.includes(name))) continue;
  // Anything else running on the machine moves the figures: the load average says whether it did.
  process.stdout.write(`\n=== ${title} (${script}), load average ${loadavg().map((n) => n.toFixed(2)).join(' ')}\n`);
  const output = await run(script, timeoutMs);
  // A table starts at its title line, two lines above the dashes; keep from there to the end.
  const lines = output.split('\n');
  const dashes = lines.findIndex((line) => /^-{3,}(\s+-{3,})*\s*$/.test(line));
  tables.push(`${title}\n${dashes >= 2 ? lines.slice(dashes - 2).join('\n').trim() : '(no table: see the output above)'}`);
}

process.stdout.write(`\n\n=== Summary (${((Date.now() - started) / 60_000).toFixed(1)} minutes)\n\n${tables.join('\n\n')}\n`);

function run(script: string, timeoutMs: number): Promise<string> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      // The gateways' own JSON log lines stay out of the report.
      const visible = chunk.split('\n').filter((line) => !line.startsWith('{"level"')).join('\n');
      output += visible;
      process.stdout.write(visible);
    });
    const timer = setTimeout(() => {
      process.stdout.write(`\n[${script} ran past ${timeoutMs / 1000} s and was stopped]\n`);
      child.kill('SIGKILL');
    }, timeoutMs);
    child.on('close', () => {
      clearTimeout(timer);
      resolve(output);
    });
  });
}
