// Drill: one tenant posts hostile bulk sends back to back while another sends ordinary SMS.
//
// The incident: parsing and checking a bulk send ran in one go on the event loop, so a 1.9 MiB
// CSV cell, a header of 100,000 columns or a 2 MiB JSON body each held the whole process for
// 0.5-1.5 s; one key posting them back to back made another account's POST /sms fail with 503 in
// most tries, its p99 1.3-1.5 s against 40 ms. Here a gateway in a process of its own (so the
// drill's clients do not share its event loop), on a fresh database of the local PostgreSQL
// (dropped at the end), serves two tenants. The other tenant posts one SMS
// every 1/rate s throughout: first alone (the baseline, measured in this same run), then while
// the hostile tenant posts, from several clients at once, in turn: a CSV with a 1.9 MiB cell, a
// CSV whose header has 100,000 columns, a JSON dry run of about 2 MiB (1,000 messages of emoji,
// each fully checked), and a CSV dry run of 1,000 valid rows. It passes when the other tenant had
// no refusal while the hostile bulks ran and its p99 stayed under the bound.
//
//   npx tsx scripts/drills/bulk-starvation.ts
//   BULK_STARVATION_SECONDS=5 npx tsx scripts/drills/bulk-starvation.ts   (quick)
//
// Settings (environment): BULK_STARVATION_SECONDS (hostile phase, 20), BULK_STARVATION_BASELINE_SECONDS
// (5), BULK_STARVATION_RATE (the other tenant's SMS a second, 20), BULK_STARVATION_CLIENTS (the
// hostile tenant's clients posting at once, 3), BULK_STARVATION_P99_MS (the bound, 200),
// DRILL_PG_URL (the PostgreSQL maintenance database, postgres://postgres@127.0.0.1:5432/postgres).
import { readNumber, runDrill, sleep } from './support/drill-kit.ts';
import { startGatewayProcess, type GatewayProcess } from './support/gateway-process.ts';
import { freshDatabase } from './support/fresh-database.ts';

const NAME = 'bulk-starvation';
/** A POST /sms taking longer than this counts as refused (a client would have given up). */
const POST_TIMEOUT_MS = 10_000;

interface Settings {
  hostileSeconds: number;
  baselineSeconds: number;
  rate: number;
  clients: number;
  p99BoundMs: number;
}

function readSettings(): Settings {
  return {
    hostileSeconds: readNumber(NAME, 'BULK_STARVATION_SECONDS', 20, 1, 600),
    baselineSeconds: readNumber(NAME, 'BULK_STARVATION_BASELINE_SECONDS', 5, 1, 120),
    rate: readNumber(NAME, 'BULK_STARVATION_RATE', 20, 1, 500),
    clients: readNumber(NAME, 'BULK_STARVATION_CLIENTS', 3, 1, 32),
    p99BoundMs: readNumber(NAME, 'BULK_STARVATION_P99_MS', 200, 1, 60_000),
  };
}

/** One kind of hostile bulk send: its request, built once, and what it came to. */
interface Hostile {
  name: string;
  path: string;
  contentType: string;
  body: Uint8Array;
  answers: Map<string, number>;
  ms: number[];
}

function hostileBulks(): Hostile[] {
  const encoder = new TextEncoder();
  const make = (name: string, path: string, contentType: string, text: string): Hostile => ({ name, path, contentType, body: encoder.encode(text), answers: new Map(), ms: [] });
  const wideHeader = Array.from({ length: 100_000 }, (_, i) => `c${i}`).join(',');
  // 80 thumbs-up with a skin tone, written as JSON escapes: 24 bytes each in the body, 80 characters in the message.
  const emoji = '\\ud83d\\udc4d\\ud83c\\udffd'.repeat(80);
  const jsonMessages = Array.from({ length: 1000 }, (_, i) => `{"phone":"+7916${String(10_000_000 + i).slice(1)}","message":"${emoji}"}`);
  const csvRows = Array.from({ length: 1000 }, (_, i) => `+7916${String(10_000_000 + i).slice(1)},row ${i} of a valid bulk send`);
  return [
    make('CSV with a 1.9 MiB cell', '/sms/bulk', 'text/csv', `phone,message\n+79161234567,${'x'.repeat(1_990_000)}\n`),
    make('CSV header of 100,000 columns', '/sms/bulk', 'text/csv', `${wideHeader}\n${wideHeader}\n`),
    make('JSON dry run, 1,000 messages, ~2 MiB', '/sms/bulk?dry_run=true', 'application/json', `{"messages":[${jsonMessages.join(',')}]}`),
    make('CSV dry run, 1,000 valid rows', '/sms/bulk?dry_run=true', 'text/csv', `phone,message\n${csvRows.join('\n')}\n`),
  ];
}

/** The other tenant's ordinary sends: each one's time, and what was not a 201. */
interface Sends {
  ms: number[];
  refused: Map<string, number>;
}

/** Posts one SMS every 1/rate s until `until`, paced against the clock; resolves when all have been answered. */
async function ordinarySends(apiUrl: string, key: string, rate: number, until: number): Promise<Sends> {
  const sends: Sends = { ms: [], refused: new Map() };
  const inFlight = new Set<Promise<void>>();
  const started = Date.now();
  let sequence = 0;
  const post = async (n: number) => {
    const begun = performance.now();
    try {
      const response = await fetch(`${apiUrl}/sms`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ phone: '+79161234567', message: `ordinary ${n}` }),
        signal: AbortSignal.timeout(POST_TIMEOUT_MS),
      });
      await response.arrayBuffer();
      sends.ms.push(performance.now() - begun);
      if (response.status !== 201) count(sends.refused, String(response.status));
    } catch (error) {
      sends.ms.push(performance.now() - begun);
      count(sends.refused, (error as Error).name === 'TimeoutError' ? 'timeout' : 'network error');
    }
  };
  while (Date.now() < until) {
    const due = Math.floor(((Date.now() - started) / 1000) * rate);
    while (sequence < due) {
      const request = post(++sequence).finally(() => inFlight.delete(request));
      inFlight.add(request);
    }
    await sleep(5);
  }
  await Promise.all(inFlight);
  return sends;
}

/** One hostile client: posts the bulks in turn, back to back, until `until`. */
async function hostileClient(apiUrl: string, key: string, bulks: Hostile[], first: number, until: number): Promise<void> {
  for (let turn = first; Date.now() < until; turn++) {
    const bulk = bulks[turn % bulks.length]!;
    const begun = performance.now();
    try {
      const response = await fetch(`${apiUrl}${bulk.path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': bulk.contentType },
        body: bulk.body,
        signal: AbortSignal.timeout(30_000),
      });
      await response.arrayBuffer();
      count(bulk.answers, String(response.status));
      // A refusal for too many at once is answered before anything is read: not the bulk's own time.
      if (response.status !== 429) bulk.ms.push(performance.now() - begun);
      else await sleep(Number(response.headers.get('retry-after') ?? 1) * 100);
    } catch (error) {
      count(bulk.answers, (error as Error).name === 'TimeoutError' ? 'timeout' : 'network error');
    }
  }
}

function count(tally: Map<string, number>, what: string): void {
  tally.set(what, (tally.get(what) ?? 0) + 1);
}

function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

const ms = (value: number) => `${Math.round(value)} ms`;
const tallyText = (tally: Map<string, number>) => ([...tally].map(([what, n]) => `${what} x${n}`).join(', ') || 'none');
const total = (tally: Map<string, number>) => [...tally.values()].reduce((sum, n) => sum + n, 0);


/** Runs the drill against a gateway in a process of its own; answers why it failed, or nothing after printing its PASS line. */
async function bulkStarvationDrill(settings: Settings = readSettings()): Promise<string | undefined> {
  const database = await freshDatabase('bulk');
  let gateway: GatewayProcess | undefined;
  try {
    gateway = await startGatewayProcess({ databaseUrl: database.url }, ['bulk-starvation-hostile', 'bulk-starvation-ordinary']);
    const { apiUrl } = gateway;
    const hostileKey = gateway.keys['bulk-starvation-hostile']!;
    const ordinaryKey = gateway.keys['bulk-starvation-ordinary']!;
    const bulks = hostileBulks();
    console.log(`gateway in its own process on 127.0.0.1:${gateway.port}, fresh PostgreSQL database`);
    console.log(`other tenant: ${settings.rate} POST /sms a second; ${settings.baselineSeconds} s alone, then ${settings.hostileSeconds} s beside ${settings.clients} hostile clients`);

    await gateway.loopDelayMaxMs();
    const baseline = await ordinarySends(apiUrl, ordinaryKey, settings.rate, Date.now() + settings.baselineSeconds * 1000);
    const baselineLoopMax = await gateway.loopDelayMaxMs();

    const until = Date.now() + settings.hostileSeconds * 1000;
    const [during] = await Promise.all([
      ordinarySends(apiUrl, ordinaryKey, settings.rate, until),
      ...Array.from({ length: settings.clients }, (_, client) => hostileClient(apiUrl, hostileKey, bulks, client, until)),
    ]);
    const hostileLoopMax = await gateway.loopDelayMaxMs();

    console.log(`baseline     : ${baseline.ms.length} sends, refused ${total(baseline.refused)} (${tallyText(baseline.refused)}), p50 ${ms(percentile(baseline.ms, 50))}, p99 ${ms(percentile(baseline.ms, 99))}, max ${ms(Math.max(...baseline.ms))}; gateway event-loop delay max ${ms(baselineLoopMax)}`);
    console.log(`hostile bulks: ${during.ms.length} sends, refused ${total(during.refused)} (${tallyText(during.refused)}), p50 ${ms(percentile(during.ms, 50))}, p99 ${ms(percentile(during.ms, 99))}, max ${ms(Math.max(...during.ms))}; gateway event-loop delay max ${ms(hostileLoopMax)}`);
    for (const bulk of bulks) {
      console.log(`  ${bulk.name.padEnd(38)} ${(bulk.body.length / 1024 / 1024).toFixed(2)} MiB  answers: ${tallyText(bulk.answers)}; answered in p50 ${ms(percentile(bulk.ms, 50))}, max ${ms(Math.max(0, ...bulk.ms))}`);
    }

    const p99 = percentile(during.ms, 99);
    const problems: string[] = [];
    if (total(during.refused) > 0) problems.push(`the other tenant had ${total(during.refused)} of ${during.ms.length} sends refused (${tallyText(during.refused)})`);
    if (!(p99 < settings.p99BoundMs)) problems.push(`the other tenant's p99 was ${ms(p99)} (bound ${settings.p99BoundMs} ms)`);
    if (total(baseline.refused) > 0) problems.push(`${total(baseline.refused)} sends refused even before the hostile bulks`);
    for (const bulk of bulks) {
      const served = [...bulk.answers].filter(([status]) => status === '200' || status === '400').reduce((sum, [, n]) => sum + n, 0);
      const failed = [...bulk.answers].filter(([status]) => !['200', '400', '429'].includes(status));
      if (served === 0) problems.push(`"${bulk.name}" was never answered 200 or 400`);
      if (failed.length > 0) problems.push(`"${bulk.name}" answered ${tallyText(new Map(failed))}`);
    }
    const figures =
      `other tenant ${during.ms.length} sends beside ${bulks.reduce((sum, bulk) => sum + total(bulk.answers), 0)} hostile bulks: refused ${total(during.refused)}, ` +
      `p99 ${ms(p99)} (baseline p99 ${ms(percentile(baseline.ms, 99))}, bound ${settings.p99BoundMs} ms)`;
    if (problems.length > 0) return `${problems.join('; ')} | ${figures}`;
    console.log(`DRILL ${NAME}: PASS ${figures}`);
    return undefined;
  } finally {
    await gateway?.stop().catch(() => {});
    await database.drop().catch((error: unknown) => console.log(`could not drop the drill database: ${(error as Error).message}`));
  }
}

const settings = readSettings();
runDrill(NAME, (settings.baselineSeconds + settings.hostileSeconds + 120) * 1000, () => bulkStarvationDrill(settings));
