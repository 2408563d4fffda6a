// Drill: hostile SMTP clients cannot hold the email-to-SMS listener, nor slow the API down.
//
// What smtp-server does alone: it says a mail is too large only once the client has sent all of
// it (60 MB read, and parsed, to refuse it), and a byte trickled now and then restarts its idle
// timeout, so a client can hold a connection, and SMTP_MAX_CLIENTS of them the whole listener,
// for ever. The gateway's listener (src/api/mail/listener.ts) counts DATA as it comes: past 1 MiB
// it answers 552 and closes at once, past SMTP_DATA_TIMEOUT after 354 it answers 421 and closes;
// past SMTP_MAX_CLIENTS a new connection is greeted 421; and an address past AUTH_FAILURE_LIMIT
// wrong keys is told 454 (come back later) instead of 535.
//
// Against a gateway in a process of its own (SMTP on, SMTP_MAX_CLIENTS and SMTP_DATA_TIMEOUT
// lowered), one after the other:
// (a) SMTP_MAX_CLIENTS logged-in connections reach DATA and trickle a byte every 250 ms; while
//     they hold every place, more connections are made: each greeted before a slow one was cut
//     must be greeted 421 at once; each slow one must be answered 421 and closed about
//     SMTP_DATA_TIMEOUT after its 354; then a new connection is greeted 220 again;
// (b) one client streams 60 MB of DATA as fast as the socket takes it: it must be answered 552
//     having written at most a few MB (the limit and what the sockets buffer), not the 60 MB;
// (c) one address sends twice AUTH_FAILURE_LIMIT wrong keys, a connection each (4 at a time):
//     past the limit (and what its count leaked meanwhile) every answer must be 454, none 535;
//     the valid key from that address still logs in (throttled, not blocked), and a wrong key
//     from another address is a plain 535.
// Meanwhile another tenant calls the HTTP API (GET /devices and POST /sms in turn, 4 at a time,
// from 127.0.0.2), first alone for a baseline: it must see no refusal and a p99 under 200 ms
// (or, on a machine loaded beyond that, within 1.5 x its baseline). Figures print with the load
// average and the gateway's longest event-loop delay.
//
//   npx tsx scripts/drills/hostile-smtp-slow-and-huge.ts
//
// Settings: SMTP_DRILL_SECONDS (the other tenant measured once the attack starts; the attack is
// over within it, 30), SMTP_DRILL_BASELINE_SECONDS (10), SMTP_DRILL_CLIENTS (SMTP_MAX_CLIENTS, 20),
// SMTP_DRILL_DATA_TIMEOUT (SMTP_DATA_TIMEOUT in seconds, 5), SMTP_DRILL_HUGE_MB (60).
import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import { loadConfig } from '../../src/config.ts';
import { MAIL_MAX_BYTES } from '../../src/api/mail/listener.ts';
import { readNumber, runDrill, sleep } from './support/drill-kit.ts';
import { latencyNote, latencyProblem, refusalNote, refusalProblem } from './support/drill-gateway.ts';
import { startGatewayProcess } from './support/gateway-process.ts';
import { SmtpLineClient, type SmtpReply } from './support/smtp-line-client.ts';
import { describeProbe, probe, refusedTotal, type ProbeResult } from './support/tenant-probe.ts';

const NAME = 'hostile-smtp-slow-and-huge';
const ATTACK_S = readNumber(NAME, 'SMTP_DRILL_SECONDS', 30, 10, 300);
const BASELINE_S = readNumber(NAME, 'SMTP_DRILL_BASELINE_SECONDS', 10, 1, 60);
const MAX_CLIENTS = readNumber(NAME, 'SMTP_DRILL_CLIENTS', 20, 1, 1000);
const DATA_TIMEOUT_S = readNumber(NAME, 'SMTP_DRILL_DATA_TIMEOUT', 5, 1, 60);
const HUGE_MB = readNumber(NAME, 'SMTP_DRILL_HUGE_MB', 60, 2, 1000);
const DOMAIN = 'drill.example.org';
const RECIPIENT = `+491701234567@${DOMAIN}`;
/** Connections made while the slow ones hold every place. */
const PAST_CAP = 10;
/** The slow clients' trickle: one byte this often, well inside SMTP_IDLE_TIMEOUT. */
const TRICKLE_MS = 250;
const IDLE_TIMEOUT_S = 10;
/** The default AUTH_FAILURE_LIMIT: wrong keys from one address before it is throttled. */
const FAILURE_LIMIT = loadConfig({}).authThrottle.failureLimit;
const FAILURE_WINDOW_MS = loadConfig({}).authThrottle.windowMs;
const WRONG_LOGINS = 2 * FAILURE_LIMIT;
const LOGIN_CONCURRENCY = 4;
/** What the huge mail may have written before its 552: the limit and what the two sockets buffer, well short of the whole. */
const HUGE_WRITTEN_BOUND = 16 * 1024 * 1024;

const load = () => `load average ${loadavg().map((n) => n.toFixed(2)).join(' ')}`;
const ms = (value: number) => `${value.toFixed(0)} ms`;
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

async function main(): Promise<string | undefined> {
  const smtp = { ...loadConfig({}).smtp, port: 0, domain: DOMAIN, maxClients: MAX_CLIENTS, dataTimeoutMs: DATA_TIMEOUT_S * 1000, idleTimeoutMs: IDLE_TIMEOUT_S * 1000 };
  const gateway = await startGatewayProcess({ smtp }, ['hostile', 'other']);
  try {
    const smtpPort = gateway.smtpPort!;
    const key = gateway.keys.hostile!;
    console.log(`gateway (own process) HTTP 127.0.0.1:${gateway.port}, SMTP 127.0.0.1:${smtpPort}; SMTP_MAX_CLIENTS ${MAX_CLIENTS}, SMTP_DATA_TIMEOUT ${DATA_TIMEOUT_S} s, SMTP_IDLE_TIMEOUT ${IDLE_TIMEOUT_S} s, AUTH_FAILURE_LIMIT ${FAILURE_LIMIT}; ${load()}`);
    const probeOptions = { baseUrl: `http://127.0.0.1:${gateway.port}`, key: gateway.keys.other!, concurrency: 4, from: '127.0.0.2' };
    await gateway.loopDelayMaxMs();
    const baseline = await probe(probeOptions, { durationMs: BASELINE_S * 1000 });
    const baselineLoop = await gateway.loopDelayMaxMs();
    console.log(`baseline (no attack, ${BASELINE_S} s): other tenant ${describeProbe(baseline)}; gateway loop delay max ${ms(baselineLoop)}; ${load()}`);

    const attackEnds = Date.now() + ATTACK_S * 1000;
    const during = probe(probeOptions, { durationMs: ATTACK_S * 1000 });
    const slow = await slowClients(smtpPort, key);
    console.log(`(a) ${slow.summary}; ${load()}`);
    const huge = await hugeMail(smtpPort, key);
    console.log(`(b) ${huge.summary}; ${load()}`);
    const logins = await wrongLogins(smtpPort, key);
    console.log(`(c) ${logins.summary}; ${load()}`);
    const attackOver = Date.now();
    const result: ProbeResult = await during;
    const attackLoop = await gateway.loopDelayMaxMs();
    console.log(`during the attack (${ATTACK_S} s): other tenant ${describeProbe(result)}; gateway loop delay max ${ms(attackLoop)}; ${load()}`);

    const problem = slow.problem ?? huge.problem ?? logins.problem;
    if (problem) return problem;
    if (attackOver > attackEnds) return `the attack outlasted the ${ATTACK_S} s the other tenant was measured (raise SMTP_DRILL_SECONDS)`;
    const counts = (of: ProbeResult) => ({ calls: of.calls, refused: refusedTotal(of) });
    const refusals = refusalProblem(counts(baseline), counts(result));
    if (refusals) return `${refusals} during the attack`;
    const latency = latencyProblem(baseline.p99Ms, result.p99Ms);
    if (latency) return latency;
    console.log(
      `DRILL ${NAME}: PASS ${slow.verdict}; ${huge.verdict}; ${logins.verdict}; other tenant ${refusedTotal(result)} refused${refusalNote(counts(result))}, ` +
        `p99 ${ms(result.p99Ms)} (baseline ${ms(baseline.p99Ms)})${latencyNote(baseline.p99Ms, result.p99Ms)}; ${load()}`,
    );
    return undefined;
  } finally {
    await gateway.stop();
  }
}

interface Phase {
  summary: string;
  verdict: string;
  problem?: string;
}

/** (a): every place held by a trickling DATA, connections past the cap, and how each ended. */
async function slowClients(port: number, key: string): Promise<Phase> {
  const clients = await Promise.all(Array.from({ length: MAX_CLIENTS }, () => SmtpLineClient.open(port, '127.0.0.3')));
  const started = await Promise.all(clients.map(async (client) => ((await client.reply())?.code === 220 ? client.startData(key, RECIPIENT) : undefined)));
  const notStarted = started.filter((reply) => reply?.code !== 354).length;
  if (notStarted > 0) {
    clients.forEach((client) => client.close());
    return { summary: `${notStarted} of ${MAX_CLIENTS} slow clients did not reach DATA`, verdict: '', problem: `${notStarted} of ${MAX_CLIENTS} slow clients did not reach DATA (${started.map((reply) => reply?.code ?? 'none').join(',')})` };
  }
  const trickles = clients.map(async (client) => {
    while (!client.closed && !client.hasReply) {
      await client.write('x');
      await sleep(TRICKLE_MS);
    }
  });

  // Every place is held: the next connections must be turned away at once.
  const pastCap = await Promise.all(
    Array.from({ length: PAST_CAP }, async () => {
      const begun = performance.now();
      const client = await SmtpLineClient.open(port, '127.0.0.3');
      const greeting = await client.reply(5_000);
      const closed = await closedWithin(client, 2_000);
      client.close();
      return { code: greeting?.code, at: greeting?.at ?? performance.now(), ms: (greeting?.at ?? performance.now()) - begun, closed };
    }),
  );

  const ends = await Promise.all(
    clients.map(async (client, i) => {
      const reply = await client.reply((DATA_TIMEOUT_S + 30) * 1000);
      const closed = await closedWithin(client, 5_000);
      client.close();
      return { code: reply?.code, at: reply?.at ?? performance.now(), afterDataMs: (reply?.at ?? performance.now()) - started[i]!.at, closed };
    }),
  );
  await Promise.all(trickles);
  const again = await SmtpLineClient.open(port, '127.0.0.3');
  const greetedAgain = (await again.reply(5_000))?.code;
  await again.command('QUIT');
  again.close();

  // Judged: the connections greeted while every slow client still held its place. On a loaded
  // machine the slow clients reach DATA over a second or more, and the first may be cut (its
  // place freed) before the last connection past the cap is greeted.
  const firstCutAt = Math.min(...ends.map((one) => one.at));
  const judged = pastCap.filter((one) => one.at < firstCutAt);
  const refusedAtOnce = judged.filter((one) => one.code === 421 && one.closed).length;
  const cut = ends.filter((one) => one.code === 421 && one.closed);
  const afterData = cut.map((one) => one.afterDataMs).sort((a, b) => a - b);
  const pastCapMs = Math.max(0, ...judged.map((one) => one.ms));
  const summary =
    `${MAX_CLIENTS} slow-DATA clients (1 byte every ${TRICKLE_MS} ms): ${cut.length} answered 421 and closed, ${(afterData[0]! / 1000).toFixed(1)}-${(afterData.at(-1)! / 1000).toFixed(1)} s after their 354; ` +
    `${PAST_CAP} connections past the cap, ${judged.length} of them greeted while every place was held: ${refusedAtOnce} greeted 421 and closed, slowest in ${ms(pastCapMs)} (the others: ${pastCap.filter((one) => !judged.includes(one)).map((one) => one.code ?? 'none').join(',') || 'none'}); afterwards a new connection greeted ${greetedAgain}`;
  const verdict = `${cut.length}/${MAX_CLIENTS} slow DATA cut by 421 within ${(afterData.at(-1)! / 1000).toFixed(1)} s, ${refusedAtOnce}/${judged.length} past the cap greeted 421 within ${ms(pastCapMs)}`;
  if (cut.length < MAX_CLIENTS) return { summary, verdict, problem: `${MAX_CLIENTS - cut.length} of ${MAX_CLIENTS} slow-DATA clients were not answered 421 and closed (${ends.map((one) => one.code ?? 'none').join(',')})` };
  // The cut comes with SMTP_DATA_TIMEOUT, not with the idle timeout (the trickle keeps that one away) nor never.
  if (afterData.at(-1)! > (DATA_TIMEOUT_S + IDLE_TIMEOUT_S) * 1000 - 1_000) return { summary, verdict, problem: `a slow DATA was cut only ${(afterData.at(-1)! / 1000).toFixed(1)} s after its 354 (SMTP_DATA_TIMEOUT ${DATA_TIMEOUT_S} s)` };
  if (judged.length === 0) return { summary, verdict, problem: `no connection past SMTP_MAX_CLIENTS was greeted before the first slow client was cut (raise SMTP_DRILL_DATA_TIMEOUT)` };
  if (refusedAtOnce < judged.length) return { summary, verdict, problem: `${judged.length - refusedAtOnce} of ${judged.length} connections past SMTP_MAX_CLIENTS were not greeted 421 and closed (${judged.map((one) => one.code ?? 'none').join(',')})` };
  if (greetedAgain !== 220) return { summary, verdict, problem: `once the slow clients were closed, a new connection was greeted ${greetedAgain ?? 'nothing'}, not 220` };
  return { summary, verdict };
}

/** (b): DATA streamed as fast as the socket takes it until the gateway answers. */
async function hugeMail(port: number, key: string): Promise<Phase> {
  const client = await SmtpLineClient.open(port, '127.0.0.4');
  await client.reply();
  const start = await client.startData(key, RECIPIENT);
  if (start?.code !== 354) {
    client.close();
    return { summary: `the huge mail did not reach DATA (${start?.code ?? 'none'})`, verdict: '', problem: `the huge mail did not reach DATA (${start?.text ?? 'no answer'})` };
  }
  const line = `${'A'.repeat(998)}\r\n`;
  const chunk = Buffer.from(line.repeat(64));
  const total = HUGE_MB * 1024 * 1024;
  const bytesAtData = client.socket.bytesWritten;
  let sent = 0;
  while (sent < total && !client.closed && !client.hasReply) {
    if (!(await client.write(chunk))) break;
    sent += chunk.length;
  }
  const reply = await client.reply(30_000);
  const closed = await closedWithin(client, 5_000);
  client.close();
  const written = (reply?.bytesWritten ?? client.socket.bytesWritten) - bytesAtData;
  const tookMs = (reply?.at ?? performance.now()) - start.at;
  const summary = `${HUGE_MB} MB DATA streamed: answered ${reply?.code ?? 'nothing'} after ${mb(written)} written (limit ${mb(MAIL_MAX_BYTES)}) in ${ms(tookMs)}, connection ${closed ? 'closed' : 'left open'}; the client had sent ${mb(sent)} of ${mb(total)} when it stopped`;
  const verdict = `${HUGE_MB} MB DATA answered 552 after ${mb(written)} in ${ms(tookMs)}`;
  if (reply?.code !== 552) return { summary, verdict, problem: `the huge mail was answered ${reply?.text ?? 'nothing'}, not 552` };
  if (written > HUGE_WRITTEN_BOUND) return { summary, verdict, problem: `the huge mail's 552 came only after ${mb(written)} written (bound ${mb(HUGE_WRITTEN_BOUND)}): the gateway read on past the limit` };
  if (!closed) return { summary, verdict, problem: 'the huge mail was answered 552 but its connection was left open' };
  return { summary, verdict };
}

/** (c): wrong keys from one address, a few connections at a time; then the valid key from it, and a wrong one from another. */
async function wrongLogins(port: number, key: string): Promise<Phase> {
  const login = async (from: string, presented: string): Promise<number | undefined> => {
    const client = await SmtpLineClient.open(port, from);
    await client.reply();
    const reply = await client.login(presented);
    client.close();
    return reply?.code;
  };
  // Well-formed keys that are not any account's: each is looked up, and each fails.
  const wrongKey = () => `sgw_${randomBytes(5).toString('hex')}_${randomBytes(32).toString('base64url')}`;
  const codes: (number | undefined)[] = [];
  const begun = performance.now();
  let next = 0;
  const guesser = async () => {
    while (next < WRONG_LOGINS) {
      next++;
      codes.push(await login('127.0.0.5', wrongKey()));
    }
  };
  await Promise.all(Array.from({ length: LOGIN_CONCURRENCY }, guesser));
  const elapsedMs = performance.now() - begun;
  const valid = await login('127.0.0.5', key);
  const elsewhere = await login('127.0.0.6', wrongKey());
  // The count leaks at AUTH_FAILURE_LIMIT per AUTH_FAILURE_WINDOW: the failures that leaked out
  // while the guesses went on may be answered 535 on top of the limit.
  const plainAllowed = FAILURE_LIMIT + Math.ceil((elapsedMs * FAILURE_LIMIT) / FAILURE_WINDOW_MS);
  const tally = (code: number) => codes.filter((one) => one === code).length;
  const others = codes.filter((one) => one !== 454 && one !== 535);
  const summary =
    `${WRONG_LOGINS} wrong keys from one address (${LOGIN_CONCURRENCY} connections at a time, ${(elapsedMs / 1000).toFixed(1)} s): ${tally(535)}x 535, ${tally(454)}x 454` +
    `${others.length ? `, other answers ${others.join(',')}` : ''} (535 allowed: ${plainAllowed}); the valid key from it answered ${valid ?? 'nothing'}, a wrong key from another address ${elsewhere ?? 'nothing'}`;
  const verdict = `${WRONG_LOGINS} wrong keys answered ${tally(535)}x 535 then ${tally(454)}x 454`;
  if (others.length > 0) return { summary, verdict, problem: `wrong keys were answered ${others.join(',')}, not 535 or 454` };
  if (tally(535) > plainAllowed) return { summary, verdict, problem: `${tally(535)} wrong keys from one address were answered 535 (at most ${plainAllowed}: AUTH_FAILURE_LIMIT and what leaked meanwhile): the address was not throttled` };
  if (valid !== 235) return { summary, verdict, problem: `the valid key from the throttled address was answered ${valid ?? 'nothing'}, not 235 (throttled must not mean blocked)` };
  if (elsewhere !== 535) return { summary, verdict, problem: `a wrong key from another address was answered ${elsewhere ?? 'nothing'}, not 535` };
  return { summary, verdict };
}

/** Whether the gateway closed the connection within `timeoutMs`. */
async function closedWithin(client: SmtpLineClient, timeoutMs: number): Promise<boolean> {
  if (client.closed) return true;
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, timeoutMs);
    client.socket.once('close', () => {
      clearTimeout(timer);
      resolve();
    });
  });
  return client.closed;
}

runDrill(NAME, (BASELINE_S + ATTACK_S + 180) * 1000, main);
