// Drill: nobody who knows a system_id can keep its ESME out with wrong binds.
//
// A system_id is no secret: it travels in clear in every bind. If wrong passwords for it locked
// it from every address, anyone who knew it could keep the ESME off for good with a dozen wrong
// binds every AUTH_CREDENTIAL_FAILURE_WINDOW. The gateway locks a system_id only towards the
// addresses that failed with it (src/common/auth-throttle.ts): from them even the right password
// is refused unchecked, while an address that has not failed is checked and binds.
//
// Here a guesser sends wrong passwords for a real system_id from many addresses (127.0.0.2 and
// on: Linux routes all of 127/8 to this machine), each bind on a connection of its own, paced
// at a fixed rate. Meanwhile the rightful ESME binds with its password from an address that has
// not failed, again and again, first alone for a baseline and then throughout the attack. It
// passes when every rightful bind succeeded, every wrong one was answered ESME_RBINDFAIL (the
// gateway's only answer to a refused bind, docs/smpp.md), the gateway checked at most one
// password per guessing address once the system_id was locked (the rest refused unchecked:
// throttled, counted by smpp_binds_total{outcome="throttled"}), and afterwards the right password
// from a guessing address is refused too (the lock holds towards them). The rightful binds'
// latency is printed beside the baseline's, with the load average.
//
//   npx tsx scripts/drills/hostile-smpp-bind-guessing.ts
//
// Settings: SMPP_GUESS_SECONDS (the attack, 20), SMPP_GUESS_ADDRESSES (guessing addresses, 40),
// SMPP_GUESS_RATE (wrong binds a second, 20), SMPP_GUESS_BASELINE_SECONDS (5).
import { loadavg } from 'node:os';
import smpp, { type PDU } from 'smpp';
import { loadConfig } from '../../src/config.ts';
import { DEFAULT_CREDENTIAL_FAILURE_LIMIT } from '../../src/common/auth-throttle.ts';
import { statusName, STATUS } from '../../src/api/smpp/command-status.ts';
import { readNumber, runDrill, sleep } from './support/drill-kit.ts';
import { startDrillGateway } from './support/drill-gateway.ts';

const NAME = 'hostile-smpp-bind-guessing';
const ATTACK_S = readNumber(NAME, 'SMPP_GUESS_SECONDS', 20, 2, 300);
const ADDRESSES = readNumber(NAME, 'SMPP_GUESS_ADDRESSES', 40, 2, 250);
const RATE = readNumber(NAME, 'SMPP_GUESS_RATE', 20, 1, 500);
const BASELINE_S = readNumber(NAME, 'SMPP_GUESS_BASELINE_SECONDS', 5, 1, 60);
/** The rightful ESME's address: outside the guessers' 127.0.0.x. */
const RIGHTFUL_FROM = '127.0.1.1';
/** The rightful ESME binds again this long after its last bind ended. */
const RIGHTFUL_EVERY_MS = 250;
/** A bind not answered within this counts as lost (no answer is a failure too). */
const BIND_TIMEOUT_MS = 10_000;

const load = () => `load average ${loadavg().map((n) => n.toFixed(2)).join(' ')}`;
const guesser = (i: number) => `127.0.0.${2 + (i % ADDRESSES)}`;

/** A bind's answer: its command_status, or why there was none. */
type BindAnswer = number | 'timeout' | 'error';

interface Bind {
  answer: BindAnswer;
  ms: number;
}

async function main(): Promise<string | undefined> {
  const defaults = loadConfig({});
  const { gateway, hostile } = await startDrillGateway({ smpp: { ...defaults.smpp, port: 0 } });
  try {
    const { credential, password } = await gateway.services.smpp.issue(hostile.accountId, {});
    const systemId = credential.system_id;
    const port = gateway.smppPort;
    const binds = (outcome: string) => gateway.services.metrics.value('smpp_binds_total', { mode: 'transceiver', outcome });
    console.log(`gateway SMPP on 127.0.0.1:${port}; system_id ${systemId}; guessers 127.0.0.2-127.0.0.${1 + ADDRESSES}, rightful ESME from ${RIGHTFUL_FROM}; ${load()}`);

    const baseline = await rightfulBinds(port, systemId, password, Date.now() + BASELINE_S * 1000);
    console.log(`baseline (no attack, ${BASELINE_S} s): rightful binds ${describeRightful(baseline)}; ${load()}`);

    const checkedBefore = binds('refused');
    const throttledBefore = binds('throttled');
    const endAt = Date.now() + ATTACK_S * 1000;
    const [wrong, during] = await Promise.all([guess(port, systemId, endAt), rightfulBinds(port, systemId, password, endAt)]);
    const checked = binds('refused') - checkedBefore;
    const throttled = binds('throttled') - throttledBefore;
    const wrongByAnswer = countAnswers(wrong.map((bind) => bind.answer));
    console.log(
      `attack (${ATTACK_S} s, ${RATE}/s from ${ADDRESSES} addresses): ${wrong.length} wrong binds sent, answered ${wrongByAnswer}; ` +
        `refused after checking the password ${checked}, refused unchecked (throttled) ${throttled}; ${load()}`,
    );
    console.log(`during the attack: rightful binds ${describeRightful(during)} (baseline ${describeRightful(baseline)}); ${load()}`);

    // The lock holds towards the guessers: the right password from each of them is refused.
    const fromGuessers = await Promise.all(Array.from({ length: ADDRESSES }, (_, i) => bind(port, guesser(i), systemId, password)));
    const guesserBound = fromGuessers.filter((one) => one.answer !== STATUS.ESME_RBINDFAIL);
    console.log(`after the attack: the right password from each guessing address answered ${countAnswers(fromGuessers.map((one) => one.answer))}; ${load()}`);

    const rightfulFailed = during.filter((one) => one.answer !== STATUS.ESME_ROK);
    if (during.length === 0) return 'the rightful ESME made no bind during the attack';
    if (rightfulFailed.length > 0) return `${rightfulFailed.length} of ${during.length} rightful binds during the attack failed (${countAnswers(rightfulFailed.map((one) => one.answer))}); ${load()}`;
    const unanswered = wrong.filter((one) => one.answer !== STATUS.ESME_RBINDFAIL);
    if (unanswered.length > 0) return `${unanswered.length} of ${wrong.length} wrong binds were not answered ESME_RBINDFAIL (${countAnswers(unanswered.map((one) => one.answer))})`;
    // Before the lock, any failures up to the credential's limit; once it is on, one per new address.
    const checkedBound = DEFAULT_CREDENTIAL_FAILURE_LIMIT + ADDRESSES;
    if (checked > checkedBound) return `the gateway checked ${checked} wrong passwords (bound ${checkedBound}: the credential's limit and one per guessing address): the guessers were not throttled`;
    if (throttled === 0 || checked + throttled !== wrong.length) return `of ${wrong.length} wrong binds ${throttled} were refused unchecked and ${checked} checked: the counts do not add up`;
    if (guesserBound.length > 0) return `the right password from ${guesserBound.length} guessing addresses was not refused (${countAnswers(guesserBound.map((one) => one.answer))}): the lock does not hold towards them`;
    console.log(
      `DRILL ${NAME}: PASS ${wrong.length} wrong binds from ${ADDRESSES} addresses all refused (${throttled} unchecked, ${checked} checked); ` +
        `rightful binds ${during.length}/${during.length} ok, p99 ${percentile(during, 0.99).toFixed(0)} ms (baseline ${percentile(baseline, 0.99).toFixed(0)} ms); ` +
        `right password from the guessers refused ${fromGuessers.length}/${fromGuessers.length}; ${load()}`,
    );
    return undefined;
  } finally {
    await gateway.stop();
  }
}

/** Wrong binds paced at RATE a second, each from the next guessing address, until `endAt`. */
async function guess(port: number, systemId: string, endAt: number): Promise<Bind[]> {
  const started = Date.now();
  const under: Promise<Bind>[] = [];
  for (let n = 0; Date.now() < endAt; ) {
    const due = Math.floor(((Date.now() - started) / 1000) * RATE);
    for (; n < due; n++) under.push(bind(port, guesser(n), systemId, `w${String(n).padStart(7, '0')}`));
    await sleep(5);
  }
  return Promise.all(under);
}

/** The rightful ESME: one bind after another from its own address until `endAt`. */
async function rightfulBinds(port: number, systemId: string, password: string, endAt: number): Promise<Bind[]> {
  const binds: Bind[] = [];
  while (Date.now() < endAt) {
    binds.push(await bind(port, RIGHTFUL_FROM, systemId, password));
    await sleep(RIGHTFUL_EVERY_MS);
  }
  return binds;
}

/** One bind_transceiver on a connection of its own from `from`, closed once answered. */
function bind(port: number, from: string, systemId: string, password: string): Promise<Bind> {
  const begun = performance.now();
  return new Promise((resolve) => {
    let done = false;
    const finish = (answer: BindAnswer) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      session.destroy();
      resolve({ answer, ms: performance.now() - begun });
    };
    const timer = setTimeout(() => finish('timeout'), BIND_TIMEOUT_MS);
    const session = smpp.connect({ url: `smpp://127.0.0.1:${port}`, localAddress: from, auto_enquire_link_period: 0 }, () => {
      session.send(new smpp.PDU('bind_transceiver', { system_id: systemId, password }), (response: PDU) => finish(response.command_status));
    });
    session.on('error', () => finish('error'));
    session.on('close', () => finish('error'));
  });
}

function countAnswers(answers: BindAnswer[]): string {
  const counts = new Map<string, number>();
  for (const answer of answers) {
    const name = typeof answer === 'number' ? statusName(answer) : answer;
    counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  return [...counts].map(([name, n]) => `${n}x ${name}`).join(', ') || 'nothing';
}

function percentile(binds: Bind[], q: number): number {
  const sorted = binds.map((one) => one.ms).sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
}

function describeRightful(binds: Bind[]): string {
  const ok = binds.filter((one) => one.answer === STATUS.ESME_ROK).length;
  return `${ok}/${binds.length} ok, p50 ${percentile(binds, 0.5).toFixed(1)} ms, p99 ${percentile(binds, 0.99).toFixed(1)} ms`;
}

runDrill(NAME, (BASELINE_S + ATTACK_S + 120) * 1000, main);
