// Drill: slow request bodies from one tenant must not take the API away from the others.
//
// The attack as it was measured: 300 connections each send POST /api/ext/v1/sms with a valid key,
// Content-Length: 1000 and one byte, and nothing more (a closed one is replaced at once). Before
// the fix each held an admission place until it was cut, so every other account's calls got
// 503 overloaded for 75 s while /healthz answered 200. Now a request waiting for its body holds
// no place, and the body must arrive within HTTP_BODY_TIMEOUT (then 408, connection closed).
//
// Another tenant calls the API throughout (GET /devices and POST /sms in turn, 4 at a time, from
// 127.0.0.2): first alone for a baseline, then during the attack. It passes when that tenant saw
// no refusal during the attack and its p99 stayed under 200 ms, and the attacker's connections
// were answered 408. The gateway runs with its default settings, except
// HTTP_MAX_CONNECTIONS_PER_ADDRESS raised to 1000 so that all 300 connections (from 127.0.0.1)
// hang rather than being refused at the door: the drill is about what holding them costs.
//
//   npx tsx scripts/drills/hostile-slow-bodies.ts
//   SLOW_BODIES_SECONDS=5 npx tsx scripts/drills/hostile-slow-bodies.ts   (quick; no 408 within 5 s)
//
// Settings: SLOW_BODIES_CONNECTIONS (300), SLOW_BODIES_SECONDS (the attack, 25: past the 15 s
// body deadline), SLOW_BODIES_BASELINE_SECONDS (10).
import { loadConfig } from '../../src/config.ts';
import { readNumber, sleep, runDrill } from './support/drill-kit.ts';
import { latencyNote, latencyProblem, refusalNote, refusalProblem, startDrillGateway } from './support/drill-gateway.ts';
import { describeProbe, probe, refusedTotal } from './support/tenant-probe.ts';
import { describeAnswers, SlowBodies } from './support/slow-bodies.ts';

const NAME = 'hostile-slow-bodies';
const CONNECTIONS = readNumber(NAME, 'SLOW_BODIES_CONNECTIONS', 300, 1, 900);
const ATTACK_S = readNumber(NAME, 'SLOW_BODIES_SECONDS', 25, 1, 120);
const BASELINE_S = readNumber(NAME, 'SLOW_BODIES_BASELINE_SECONDS', 10, 1, 60);

async function main(): Promise<string | undefined> {
  const defaults = loadConfig({}).httpLimits;
  const { gateway, baseUrl, hostile, other } = await startDrillGateway({ httpLimits: { ...defaults, maxConnectionsPerAddress: 1_000 } });
  let failure: string | undefined;
  const attack = new SlowBodies(gateway.httpPort, hostile.key, CONNECTIONS);
  try {
    const probeOptions = { baseUrl, key: other.key, concurrency: 4, from: '127.0.0.2' };
    const baseline = await probe(probeOptions, { durationMs: BASELINE_S * 1000 });
    console.log(`baseline (no attack, ${BASELINE_S} s): other tenant ${describeProbe(baseline)}`);

    await attack.start();
    const readiness = new Map<number, number>();
    const sampler = setInterval(() => {
      void fetch(`${baseUrl}/readyz`).then((response) => readiness.set(response.status, (readiness.get(response.status) ?? 0) + 1));
    }, 1_000);
    await sleep(500);
    console.log(`attack: ${attack.hanging} connections hang with a 1-byte body of 1000; admission in flight ${gateway.services.admission.current.inFlight}, limit ${gateway.services.admission.current.limit}`);
    const during = await probe(probeOptions, { durationMs: ATTACK_S * 1000 });
    clearInterval(sampler);
    const tally = attack.stop();
    console.log(`during the attack (${ATTACK_S} s): other tenant ${describeProbe(during)}`);
    console.log(`attacker: ${tally.opened} connections opened; the gateway answered ${describeAnswers(tally.answers)} before closing them (HTTP_BODY_TIMEOUT ${defaults.bodyTimeoutMs / 1000} s)`);
    console.log(`/readyz during the attack: ${[...readiness].map(([status, n]) => `${n}x ${status}`).join(', ')}; 503 refusals in all (baseline included): ${gateway.services.admission.refusedCount('in_flight')} for requests in flight, ${gateway.services.admission.refusedCount('event_loop')} for event-loop delay`);

    const counts = (result: typeof during) => ({ calls: result.calls, refused: refusedTotal(result) });
    const refusals = refusalProblem(counts(baseline), counts(during));
    if (refusals) failure = `${refusals} during the attack`;
    else if (latencyProblem(baseline.p99Ms, during.p99Ms)) failure = latencyProblem(baseline.p99Ms, during.p99Ms);
    else if (ATTACK_S * 1000 > defaults.bodyTimeoutMs + 2_000 && !tally.answers.get('408')) failure = 'no slow body was answered 408';
    if (!failure) {
      console.log(
        `DRILL ${NAME}: PASS other tenant ${refusedTotal(during)} refused${refusalNote(counts(during))}, p99 ${during.p99Ms.toFixed(0)} ms (baseline ${baseline.p99Ms.toFixed(0)} ms) under ${CONNECTIONS} slow bodies; ${tally.answers.get('408') ?? 0} answered 408${latencyNote(baseline.p99Ms, during.p99Ms)}`,
      );
    }
  } finally {
    attack.stop();
    await gateway.stop();
  }
  return failure;
}

runDrill(NAME, (ATTACK_S + BASELINE_S + 60) * 1000, main);
