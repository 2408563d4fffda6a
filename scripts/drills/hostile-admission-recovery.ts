// Drill: after a hostile episode, the adaptive admission limit must come back by itself.
//
// As it was measured: after one episode the limit had shrunk to its floor and grew back only
// while it turned requests away, so 5 slow bodies were then enough for 44/44 refusals, and an
// ordinary client with 10 concurrent GETs got 73/300, then 25/300, then 4/1,000 503s while the
// limit crept back (0/300 on a fresh node). Now the limit grows back whenever requests are fast
// or nothing runs, and slow bodies hold no place.
//
// Steps: a baseline (the ordinary client: 10 calls at a time, 300 of them, from 127.0.0.2), then
// the episode: 250 slow bodies plus a burst of 250 calls at a time that takes the latency far
// past HTTP_TARGET_LATENCY, so the limit shrinks for real; then, 2 s after the burst, 5 slow
// bodies hang while the ordinary client makes 300, 300 and 1,000 calls again. It passes when none
// of those calls was refused and their p99 stayed under 200 ms.
//
//   npx tsx scripts/drills/hostile-admission-recovery.ts
//
// Settings: RECOVERY_EPISODE_SECONDS (the burst, 8), RECOVERY_QUIET_SECONDS (after it, 2).
import { readNumber, sleep, runDrill } from './support/drill-kit.ts';
import { latencyNote, latencyProblem, refusalNote, refusalProblem, startDrillGateway } from './support/drill-gateway.ts';
import { describeProbe, probe, refusedTotal, type ProbeResult } from './support/tenant-probe.ts';
import { SlowBodies } from './support/slow-bodies.ts';

const NAME = 'hostile-admission-recovery';
const EPISODE_S = readNumber(NAME, 'RECOVERY_EPISODE_SECONDS', 8, 1, 60);
const QUIET_S = readNumber(NAME, 'RECOVERY_QUIET_SECONDS', 2, 0, 60);

async function main(): Promise<string | undefined> {
  const { gateway, baseUrl, hostile, other } = await startDrillGateway();
  const admission = gateway.services.admission;
  let failure: string | undefined;
  const slow = new SlowBodies(gateway.httpPort, hostile.key, 250);
  const fewSlow = new SlowBodies(gateway.httpPort, hostile.key, 5);
  try {
    const ordinary = { baseUrl, key: other.key, concurrency: 10, from: '127.0.0.2' };
    const baseline = await probe(ordinary, { calls: 300 });
    console.log(`baseline (fresh node): ordinary client ${describeProbe(baseline)}; limit ${admission.current.limit}`);

    // The episode: slow bodies, and a burst far past what the node serves within the target.
    await slow.start();
    let lowest = admission.current.limit;
    const watcher = setInterval(() => (lowest = Math.min(lowest, admission.current.limit)), 50);
    const burst = await probe({ baseUrl, key: hostile.key, concurrency: 250, from: '127.0.0.3', timeoutMs: 30_000 }, { durationMs: EPISODE_S * 1000 });
    slow.stop();
    clearInterval(watcher);
    console.log(`episode (${EPISODE_S} s): 250 slow bodies + a burst of 250 calls at a time: ${describeProbe(burst)}`);
    console.log(`  the limit went down to ${lowest} (HTTP_MAX_IN_FLIGHT ${gateway.config.admission.maxInFlight}); ${admission.current.limit} when the burst ended`);

    await sleep(QUIET_S * 1000);
    console.log(`after ${QUIET_S} s of quiet: limit ${admission.current.limit}`);
    await fewSlow.start();
    const inFlightBefore = admission.refusedCount('in_flight');
    const rounds: ProbeResult[] = [];
    for (const calls of [300, 300, 1_000]) {
      const round = await probe(ordinary, { calls });
      rounds.push(round);
      console.log(`  with 5 slow bodies hanging: ordinary client ${describeProbe(round)}; limit ${admission.current.limit}`);
    }
    fewSlow.stop();
    console.log(`  503 refusals in all: ${admission.refusedCount('in_flight')} for requests in flight, ${admission.refusedCount('event_loop')} for event-loop delay (MAX_EVENT_LOOP_DELAY)`);

    const refused = rounds.reduce((sum, round) => sum + refusedTotal(round), 0);
    const worstP99 = Math.max(...rounds.map((round) => round.p99Ms));
    if (lowest >= gateway.config.admission.maxInFlight) console.log('  (the episode did not shrink the limit on this machine: the recovery was not put to the test)');
    const calls = rounds.reduce((sum, round) => sum + round.calls, 0);
    const refusals = refusalProblem({ calls: baseline.calls, refused: refusedTotal(baseline) }, { calls, refused });
    // What the drill is about: the in-flight limit must not refuse anyone once the episode is over.
    const inFlightAfter = admission.refusedCount('in_flight') - inFlightBefore;
    if (inFlightAfter > 0) failure = `the in-flight limit refused ${inFlightAfter} calls after the episode`;
    else if (refusals) failure = `after the episode: ${refusals}`;
    else if (latencyProblem(baseline.p99Ms, worstP99)) failure = `after the episode: ${latencyProblem(baseline.p99Ms, worstP99)}`;
    if (!failure) {
      console.log(
        `DRILL ${NAME}: PASS after the limit fell to ${lowest}, ${refused} of ${calls} ordinary calls refused (none by the in-flight limit)${refusalNote({ refused })}, p99 ${worstP99.toFixed(0)} ms (baseline ${baseline.p99Ms.toFixed(0)} ms)${latencyNote(baseline.p99Ms, worstP99)}`,
      );
    }
  } finally {
    slow.stop();
    fewSlow.stop();
    await gateway.stop();
  }
  return failure;
}

runDrill(NAME, (EPISODE_S + QUIET_S + 240) * 1000, main);
