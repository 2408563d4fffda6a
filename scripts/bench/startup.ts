// Start time and idle memory of `sms-gateway serve`: the TypeScript sources run through tsx (how
// the command ran before it shipped compiled JavaScript) against the compiled dist/ (how it runs
// now), on the embedded database and on PostgreSQL.
//
// For each (runner, database) pair: STARTUP_RUNS starts (default 5) of a gateway whose database
// is already migrated (one unmeasured start first). Each start is timed from spawn to the
// "gateway listening" log line and to the first 200 from /healthz; then the gateway idles for
// STARTUP_IDLE_MS (default 5,000) and its resident memory is read (the whole process tree: the
// tsx command keeps a parent process beside the gateway). Medians are printed.
//
//   npx tsx scripts/bench/startup.ts
//   STARTUP_RUNS=3 STARTUP_IDLE_MS=2000 npx tsx scripts/bench/startup.ts
//
// Everything runs on 127.0.0.1 with ports chosen by the system, and stops by itself.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { freshDatabase, positiveIntegerSetting, printTable, REPO_ROOT } from './support.ts';

const RUNS = positiveIntegerSetting('STARTUP_RUNS', 5);
const IDLE_MS = positiveIntegerSetting('STARTUP_IDLE_MS', 5_000);
const START_TIMEOUT_MS = 120_000;

interface Runner {
  name: string;
  args: string[];
}

const RUNNERS: Runner[] = [
  // What the bin did before: tsx's loader in the gateway's own process.
  { name: 'tsx loader (old bin)', args: ['--import', 'tsx', 'src/cli/index.ts', 'serve'] },
  // What `npm start` ran before: the tsx command, which starts the gateway as its child.
  { name: 'tsx command (old npm start)', args: [join(REPO_ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs'), 'src/cli/index.ts', 'serve'] },
  // Now: the compiled entry point the bin imports. Started directly, so that a source edited
  // meanwhile (by anyone on this machine) cannot turn a measured start into a build; the bin's
  // own freshness check is timed on its own below.
  { name: 'dist (bin, npm start)', args: ['dist/src/cli/index.js', 'serve'] },
];

interface Sample {
  listeningMs: number;
  healthyMs: number;
  /** CPU seconds (user + system) the process tree used until it listened: unlike wall time, barely moved by other load on the machine. */
  cpuS: number;
  rssMb: number;
}

/** Clock ticks per second of /proc/<pid>/stat's CPU times (USER_HZ: 100 on Linux). */
const TICKS_PER_SECOND = 100;

/** Resident memory (MiB) and CPU time used so far (s) of a process and all its descendants (Linux /proc). */
function treeUsage(pid: number): { rssMb: number; cpuS: number } {
  let kib = 0;
  let ticks = 0;
  const visit = (id: number) => {
    try {
      kib += Number(/^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${id}/status`, 'utf8'))?.[1] ?? 0);
      // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
      const fields = readFileSync(`/proc/${id}/stat`, 'utf8').split(') ')[1]!.split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
      for (const child of readFileSync(`/proc/${id}/task/${id}/children`, 'utf8').trim().split(/\s+/)) if (child) visit(Number(child));
    } catch {
      // the process ended meanwhile
    }
  };
  visit(pid);
  return { rssMb: kib / 1024, cpuS: ticks / TICKS_PER_SECOND };
}

async function startOnce(runner: Runner, env: NodeJS.ProcessEnv, measure: boolean): Promise<Sample> {
  const spawnedAt = performance.now();
  const child = spawn(process.execPath, runner.args, { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
  try {
    const port = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${runner.name}: not listening within ${START_TIMEOUT_MS} ms\n${stderr}`)), START_TIMEOUT_MS);
      void exited.then((code) => reject(new Error(`${runner.name}: exited with ${code} before listening\n${stderr}`)));
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        stdout += chunk;
        const lines = stdout.split('\n');
        stdout = lines.pop()!; // a line not complete yet
        for (const line of lines) {
          if (!line.includes('"gateway listening"')) continue;
          clearTimeout(timer);
          resolve((JSON.parse(line) as { port: number }).port);
        }
      });
    });
    const listeningMs = performance.now() - spawnedAt;
    const { cpuS } = treeUsage(child.pid!);
    for (;;) {
      const response = await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => undefined);
      if (response?.status === 200) break;
    }
    const healthyMs = performance.now() - spawnedAt;
    if (measure) await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
    const { rssMb } = treeUsage(child.pid!);
    return { listeningMs, healthyMs, cpuS, rssMb };
  } finally {
    child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(killer);
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

// dist/ is built before anything is timed: a build is not part of a start.
execFileSync(process.execPath, ['scripts/build.js', '--optional'], { cwd: REPO_ROOT, stdio: 'inherit' });

const rows: Record<string, string | number>[] = [];
const postgres = await freshDatabase('startup');
const dataDir = mkdtempSync(join(tmpdir(), 'sgw-startup-'));
try {
  const databases: [string, NodeJS.ProcessEnv][] = [
    ['embedded (PGlite)', { DATA_DIR: dataDir }],
    ['PostgreSQL', { DATABASE_URL: postgres.url }],
  ];
  for (const [database, databaseEnv] of databases) {
    for (const runner of RUNNERS) {
      const env: NodeJS.ProcessEnv = { ...process.env, PORT: '0', MQTT_PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...databaseEnv };
      if (!databaseEnv.DATABASE_URL) delete env.DATABASE_URL;
      // Unmeasured: migrates a fresh database, creates the first account, warms the disk cache.
      await startOnce(runner, env, false);
      const samples: Sample[] = [];
      for (let i = 0; i < RUNS; i++) {
        const sample = await startOnce(runner, env, true);
        samples.push(sample);
        process.stdout.write(
          `${database}, ${runner.name}, run ${i + 1}: listening ${sample.listeningMs.toFixed(0)} ms (CPU ${sample.cpuS.toFixed(2)} s), healthy ${sample.healthyMs.toFixed(0)} ms, RSS ${sample.rssMb.toFixed(1)} MiB, load ${loadavg()[0]!.toFixed(1)}\n`,
        );
      }
      rows.push({
        database,
        runner: runner.name,
        runs: RUNS,
        'to listening (ms, median)': median(samples.map((s) => s.listeningMs)).toFixed(0),
        'to /healthz 200 (ms, median)': median(samples.map((s) => s.healthyMs)).toFixed(0),
        'CPU to listening (s, median)': median(samples.map((s) => s.cpuS)).toFixed(2),
        [`RSS after ${IDLE_MS / 1000} s idle (MiB, median)`]: median(samples.map((s) => s.rssMb)).toFixed(1),
      });
    }
  }
} finally {
  rmSync(dataDir, { recursive: true, force: true });
  await postgres.drop();
}

// What the bin adds before it imports dist/: hashing the sources' sizes and times.
const freshness = execFileSync(
  process.execPath,
  [
    '--input-type=module',
    '-e',
    `const { fingerprint } = await import('./scripts/build.js'); const t = []; for (let i = 0; i < 5; i++) { const s = performance.now(); fingerprint(); t.push(performance.now() - s); } t.sort((a, b) => a - b); process.stdout.write(t[2].toFixed(1));`,
  ],
  { cwd: REPO_ROOT, encoding: 'utf8' },
);

printTable('Start time and idle memory of sms-gateway serve', rows);
process.stdout.write(`\nThe bin's freshness check of dist/ against the sources: ${freshness} ms (median of 5), load average ${loadavg().map((n) => n.toFixed(2)).join(' ')}\n`);
