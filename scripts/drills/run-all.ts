// `npm run drills`: every drill under scripts/drills, one after the other, each in its own
// process, then a summary. A drill breaks something on purpose (a database stop, a receiver
// outage, a flood of hostile connections) against a real gateway on 127.0.0.1 and checks that
// nothing is lost; it stops by itself and ends with one line "DRILL <name>: PASS|FAIL <summary>".
// `npm run drills -- webhook` runs the drills whose file name contains "webhook". Each drill's own
// environment variables (durations, rates) pass through; their defaults are what the drills are
// meant to prove, so a full run takes about 15 minutes.
//
// The hostile-client drills (`npm run drills -- hostile`): hostile-slow-bodies,
// hostile-admission-recovery, hostile-half-open and hostile-smpp-payload (oversized SMPP text,
// with the process's growth in RSS), each printing what another tenant saw during the attack
// against a baseline of the same run, with the load average beside. Bulk starvation (bulk-starvation.ts) belongs with
// them: every .ts file here is a drill, so it runs as soon as it exists, with no change here.
// So does database-blackhole (the database's open connections go silent while new ones work),
// which prints how long after the fault the API answered every request again, the longest
// request meanwhile and the load average.
// postgres-failover: the primary of a synchronous pair is killed and its standby promoted under
// load; prints the gap (kill to the first 201 after it), SMS lost and sent twice.
// hostile-smpp-bind-guessing: wrong binds for a real system_id from 40 addresses are throttled
// while its ESME, binding from its own address, binds every time. hostile-smtp-slow-and-huge:
// slow DATA cut by SMTP_DATA_TIMEOUT, connections past SMTP_MAX_CLIENTS greeted 421, a 60 MB mail
// refused 552 after a few MB, throttled wrong keys answered 454, another tenant's API beside.
// secret-key-mismatch: commands run with another DATA_DIR refuse to seal secrets; a webhook
// secret or Twilio token the gateway's key cannot open is disabled or marked, and logged, once,
// with no 5xx to its requests.
// redis-sentinel-failover: two nodes on a Redis Sentinel group whose master is killed twice under
// load follow the promoted replica; prints each promotion and each node's gap, nothing lost or
// sent twice, no phone moved.
// rolling-upgrade: a node of the previous release (a git worktree of the commit before the newest
// migration) and nodes of this one on one database across that migration, under load: 0 lost, 0 twice.
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** A drill that has not ended after this long is stopped and counted as failed. */
const DRILL_TIMEOUT_MS = Number(process.env.DRILL_TIMEOUT_MS ?? 30 * 60_000);

const only = process.argv.slice(2);
const drills = readdirSync(new URL('.', import.meta.url))
  .filter((file) => file.endsWith('.ts') && file !== 'run-all.ts')
  .filter((file) => only.length === 0 || only.some((name) => file.includes(name)))
  .sort();

const results: { drill: string; verdict: string; seconds: number }[] = [];
for (const file of drills) {
  process.stdout.write(`\n=== ${file}\n`);
  const started = Date.now();
  const verdict = await run(`scripts/drills/${file}`);
  results.push({ drill: file.replace(/\.ts$/, ''), verdict, seconds: Math.round((Date.now() - started) / 1000) });
}

process.stdout.write('\n=== Drills\n');
for (const { drill, verdict, seconds } of results) process.stdout.write(`${drill.padEnd(20)} ${String(seconds).padStart(5)} s  ${verdict}\n`);
const failed = results.filter((result) => !result.verdict.startsWith('PASS'));
process.stdout.write(failed.length === 0 ? `all ${results.length} drills passed\n` : `${failed.length} of ${results.length} drills failed\n`);
process.exit(failed.length === 0 && results.length > 0 ? 0 : 1);

/** Runs one drill; resolves with what its DRILL line says (or why there was none). */
function run(script: string): Promise<string> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    let verdict: string | undefined;
    let buffer = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      process.stdout.write(chunk);
      buffer += chunk;
      let newline: number;
      while ((newline = buffer.indexOf('\n')) >= 0) {
        const match = /^DRILL \S+: ((?:PASS|FAIL).*)$/.exec(buffer.slice(0, newline));
        if (match) verdict = match[1];
        buffer = buffer.slice(newline + 1);
      }
    });
    const timer = setTimeout(() => {
      verdict = `FAIL ran past ${DRILL_TIMEOUT_MS / 1000} s and was stopped`;
      child.kill('SIGKILL');
    }, DRILL_TIMEOUT_MS);
    child.once('exit', (code) => {
      clearTimeout(timer);
      if (!verdict) verdict = `FAIL ended (exit ${code}) without a DRILL line`;
      else if (code !== 0 && verdict.startsWith('PASS')) verdict = `FAIL said PASS but exited ${code}`;
      resolve(verdict);
    });
  });
}
