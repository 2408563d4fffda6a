// How long a one-shot command takes (`sms-gateway keys list`), on PostgreSQL and on the embedded
// database, and how many JavaScript files it loads to do it. Operators and scripts run these
// commands one after another, and most of their time goes to loading code.
//
// Each command runs COMMAND_RUNS times (default 10; one unmeasured run first builds dist/ if
// needed and migrates the database). Wall time and the CPU time of the child (user + system,
// which other load on the machine barely moves) are printed as medians. With COMMAND_BASELINE set
// to another checkout of the project (its own node_modules beside it), that checkout's command
// runs alternately with this one's on the same databases, so both see the same machine.
//
//   npx tsx scripts/bench/command-startup.ts
//   COMMAND_BASELINE=/work/wt-base COMMAND_RUNS=20 npx tsx scripts/bench/command-startup.ts
//
// Everything runs on 127.0.0.1 and stops by itself.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freshDatabase, positiveIntegerSetting, printTable, REPO_ROOT } from './support.ts';

const RUNS = positiveIntegerSetting('COMMAND_RUNS', 10);
const BASELINE = process.env.COMMAND_BASELINE;
const COMMAND = ['keys', 'list'];

interface Sample {
  wallMs: number;
  cpuMs: number;
}

/** One run of the command from `checkout`; throws with its stderr if it fails. */
function runOnce(checkout: string, env: NodeJS.ProcessEnv): Sample {
  const started = performance.now();
  // /usr/bin/time is not everywhere: the child's CPU is read from the shell's `times` instead.
  const result = spawnSync('bash', ['-c', 'node "$0" "$@" >/dev/null && times', join(checkout, 'bin', 'sms-gateway.js'), ...COMMAND], {
    env,
    encoding: 'utf8',
    timeout: 120_000,
  });
  const wallMs = performance.now() - started;
  if (result.status !== 0) throw new Error(`${checkout}: sms-gateway ${COMMAND.join(' ')} failed (${result.status}):\n${result.stderr}`);
  return { wallMs, cpuMs: childCpuMs(result.stdout) };
}

/** The children's user and system time from bash's `times` (its second line: "0m0.780s 0m0.160s"). */
function childCpuMs(timesOutput: string): number {
  const line = timesOutput.trim().split('\n').at(-1) ?? '';
  const seconds = [...line.matchAll(/(\d+)m([\d.]+)s/g)].map((match) => Number(match[1]) * 60 + Number(match[2]));
  if (seconds.length !== 2) throw new Error(`unexpected output of times: ${JSON.stringify(timesOutput)}`);
  return (seconds[0]! + seconds[1]!) * 1000;
}

/** The JavaScript files the command opens, counted with strace when it is installed. */
function filesLoaded(checkout: string, env: NodeJS.ProcessEnv): number | string {
  const traceDir = mkdtempSync(join(tmpdir(), 'sgw-command-trace-'));
  try {
    const trace = join(traceDir, 'openat.txt');
    const traced = spawnSync('strace', ['-f', '-e', 'trace=openat', '-o', trace, 'node', join(checkout, 'bin', 'sms-gateway.js'), ...COMMAND], { env, timeout: 120_000 });
    if (traced.error || traced.status !== 0) return 'n/a (strace)';
    return readFileSync(trace, 'utf8')
      .split('\n')
      .filter((line) => /\.(c|m)?js"/.test(line) && !line.includes('ENOENT')).length;
  } finally {
    rmSync(traceDir, { recursive: true, force: true });
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function main(): Promise<void> {
  const checkouts = [{ name: 'this checkout', dir: REPO_ROOT }, ...(BASELINE ? [{ name: 'baseline', dir: BASELINE }] : [])];
  const postgres = await freshDatabase('command_startup');
  const dataDir = mkdtempSync(join(tmpdir(), 'sgw-command-startup-'));
  const databases = [
    { name: 'PostgreSQL', env: { ...process.env, DATABASE_URL: postgres.url, DATA_DIR: dataDir } },
    { name: 'PGlite', env: { ...process.env, DATABASE_URL: '', DATA_DIR: dataDir } },
  ];
  const rows: Record<string, string | number>[] = [];
  try {
    for (const database of databases) {
      const samples = new Map(checkouts.map((checkout) => [checkout.name, [] as Sample[]]));
      for (const checkout of checkouts) runOnce(checkout.dir, database.env);
      for (let run = 0; run < RUNS; run++) {
        for (const checkout of checkouts) samples.get(checkout.name)!.push(runOnce(checkout.dir, database.env));
      }
      for (const checkout of checkouts) {
        const taken = samples.get(checkout.name)!;
        rows.push({
          database: database.name,
          checkout: checkout.name,
          runs: taken.length,
          'wall ms (median)': median(taken.map((s) => s.wallMs)).toFixed(0),
          'CPU ms (median)': median(taken.map((s) => s.cpuMs)).toFixed(0),
          'JS files opened': filesLoaded(checkout.dir, database.env),
        });
      }
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
    await postgres.drop();
  }
  printTable(`sms-gateway ${COMMAND.join(' ')}: ${RUNS} runs each${BASELINE ? ', alternating with the baseline' : ''}`, rows);
}

await main();
