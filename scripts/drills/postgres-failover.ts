// Drill: the PostgreSQL primary dies under 50 SMS/s and its synchronous standby is promoted.
//
// The gateway's DATABASE_URL names both servers (postgres://…@primary,standby/db?
// target_session_attrs=read-write). Simulated phones take the SMS a client posts at a steady rate;
// the primary is killed (pg_ctl stop -m immediate, as a crash) and the standby promoted a few
// seconds later, as a failover manager would (support/failover-scenario.ts). It passes when every
// SMS answered 201 is on the new primary, none was sent twice or handed to two phones, every one
// is sent within the bound after the gap, and the only refusals are 503 database_unavailable with
// Retry-After during the gap. It prints the gap: from the kill to the first 201 after it.
//
//   npx tsx scripts/drills/postgres-failover.ts
//
// Settings (environment): POSTGRES_FAILOVER_RATE (SMS a second, 50), POSTGRES_FAILOVER_PHONES (20),
// POSTGRES_FAILOVER_WARMUP_SECONDS (before the kill and after the gap, 10),
// POSTGRES_FAILOVER_PROMOTE_SECONDS (from the kill to the promotion, 5),
// POSTGRES_FAILOVER_DRAIN_SECONDS (the bound after the gap, 60), POSTGRES_FAILOVER_LOG_LEVEL
// (the gateway's log on stdout, default silent).
import type { LogLevel } from '../../src/config.ts';
import { runFailover } from './support/failover-scenario.ts';
import { readNumber, runDrill } from './support/drill-kit.ts';

const NAME = 'postgres-failover';
const RATE = readNumber(NAME, 'POSTGRES_FAILOVER_RATE', 50, 1, 1000);
const PHONES = readNumber(NAME, 'POSTGRES_FAILOVER_PHONES', 20, 1, 500);
const WARMUP_S = readNumber(NAME, 'POSTGRES_FAILOVER_WARMUP_SECONDS', 10, 1, 300);
const PROMOTE_S = readNumber(NAME, 'POSTGRES_FAILOVER_PROMOTE_SECONDS', 5, 0, 300);
const DRAIN_S = readNumber(NAME, 'POSTGRES_FAILOVER_DRAIN_SECONDS', 60, 1, 600);
const LOG_LEVEL = (process.env.POSTGRES_FAILOVER_LOG_LEVEL ?? 'silent') as LogLevel;

// Ctrl-C and kill still remove the clusters (their exit handler runs on process.exit).
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    console.log(`DRILL ${NAME}: FAIL interrupted by ${signal}`);
    process.exit(1);
  });
}

runDrill(NAME, (2 * WARMUP_S + PROMOTE_S + DRAIN_S) * 1000 + 5 * 60_000, async () => {
  const figures = await runFailover({
    rate: RATE,
    phones: PHONES,
    warmupMs: WARMUP_S * 1000,
    promoteAfterMs: PROMOTE_S * 1000,
    drainMs: DRAIN_S * 1000,
    logLevel: LOG_LEVEL,
    say: (line) => console.log(line),
  });
  const refused = [...figures.refused].map(([reason, n]) => `${reason}: ${n}`).join(', ') || 'none';
  console.log(`accepted ${figures.accepted}; refused ${refused}`);
  console.log(`gap ${figures.gapMs ?? '-'} ms from the kill to the first 201 after it (promotion done ${figures.promotedAfterMs} ms after the kill)`);
  console.log(`lost ${figures.lost.length}; sent twice ${figures.sentTwice}; handed to two phones ${figures.handedToTwo}; not sent in time ${figures.stuck}`);
  console.log(figures.drainedAfterMs === undefined ? `not every SMS sent within ${DRAIN_S} s of the gap` : `every SMS sent ${figures.drainedAfterMs} ms after the gap`);
  for (const [msg, n] of [...figures.warnings].sort((a, b) => b[1] - a[1])) console.log(`  ${String(n).padStart(5)}  ${msg}`);

  const problems: string[] = [];
  if (figures.gapMs === undefined) problems.push('no SMS accepted after the kill');
  if (figures.lost.length > 0) problems.push(`${figures.lost.length} SMS answered 201 missing on the new primary`);
  if (figures.sentTwice > 0) problems.push(`${figures.sentTwice} SMS sent twice`);
  if (figures.handedToTwo > 0) problems.push(`${figures.handedToTwo} SMS handed to two phones`);
  if (figures.stuck > 0) problems.push(`${figures.stuck} SMS not sent within ${DRAIN_S} s of the gap`);
  if (figures.unexpectedRefusals.length > 0) problems.push(`unexpected answers: ${figures.unexpectedRefusals.slice(0, 5).join('; ')}`);
  if (figures.warnedAsync) problems.push('warned of an asynchronous standby where replication is synchronous');
  if (problems.length > 0) return problems.join('; ');
  console.log(`DRILL ${NAME}: PASS gap ${figures.gapMs} ms, ${figures.accepted} accepted, 0 lost, 0 sent twice, all sent ${figures.drainedAfterMs} ms after the gap`);
  return undefined;
});
