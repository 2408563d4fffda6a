// Which of the gateway's files one SMS runs code in, from POST /sms to the last webhook: read
// from V8's own coverage, not guessed from imports. A gateway (in this process, on the embedded
// database), one simulated phone and a webhook receiver subscribed to sms.status_changed; one SMS
// is sent through first so that everything is loaded, then coverage is reset and a second SMS
// goes POST -> row -> task -> phone reports (processing, sent, delivered) -> three webhooks.
// Counted: files under src/ and broker/ with a function called in that window (the simulator and
// the device agent are the phone's side, not counted). Timers that happen to fire in the window
// (the dispatch sweep, the webhook sender's poll) count too: they are part of how an SMS moves.
//
// The queries of that window are counted too (knex's 'query' event, transactions told apart by
// their id): those of each status batch (a transaction that changes sms.status), and
// among them those that read or write a feature's tables the SMS never used (SMPP, Twilio, MMS, USSD, mail).
//
//   npx tsx scripts/bench/sms-path-files.ts            (prints the count, the files by folder, and the queries)
//   SHOW_SQL=1 npx tsx scripts/bench/sms-path-files.ts (also each transaction's statements, cut to 90 characters)
//   SHOW_FUNCTIONS=1 npx tsx scripts/bench/sms-path-files.ts (also each file's named functions that ran, with their calls)
import { Session } from 'node:inspector/promises';
import { fileURLToPath } from 'node:url';
import { relative } from 'node:path';
import { loadConfig, type Config } from '../../src/config.ts';
import { createLogger } from '../../src/common/logger.ts';
import { Gateway } from '../../src/gateway.ts';
import { PERMISSIONS } from '../../src/modules/api-keys/permissions.ts';
import { SimulatedDevice } from '../../src/simulator/device.ts';
import { Receiver } from '../../test/support/receiver.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Tables of features a plain API SMS does not use: a query on them for such an SMS is work for nothing. */
const OTHER_FEATURES = /"(smpp_[a-z_]+|twilio_[a-z_]+|mms_[a-z_]+|ussd_[a-z_]+|mail_[a-z_]+)"/;

interface Query {
  sql: string;
  __knexTxId?: string;
}

interface ScriptCoverage {
  url: string;
  functions: { functionName: string; ranges: { count: number }[] }[];
}

/** What registration answers: credentials as MQTT takes them. */
function credentialsOf(registered: Record<string, unknown>): { deviceId: string; token: string } {
  const credentials = registered.credentials as { username: string; password: string };
  return { deviceId: credentials.username, token: credentials.password };
}

async function main(): Promise<void> {
  const defaults = loadConfig({});
  const config: Config = {
    ...defaults,
    port: 0,
    mqttPort: 0,
    host: '127.0.0.1',
    databaseUrl: undefined,
    dataDir: ':memory:',
    logLevel: 'silent',
    webhooks: { ...defaults.webhooks, allowedHosts: ['127.0.0.1'] },
    // What is counted is which files run, not how fast: a loaded machine must not turn the SMS away.
    admission: { ...defaults.admission, targetLatencyMs: 0, maxEventLoopDelayMs: 0 },
  };
  const gateway = await Gateway.start(config, createLogger('silent'));
  const receiver = new Receiver();
  await receiver.start();
  const api = `http://127.0.0.1:${gateway.httpPort}/api/ext/v1`;
  const account = await gateway.services.accounts.create('sms-path');
  const { key } = await gateway.services.apiKeys.create(account.id, [...PERMISSIONS]);
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${api}${path}`, { method, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    const answer = (await response.json()) as Record<string, unknown>;
    if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(answer)}`);
    return answer;
  };
  const registered = await call('POST', '/devices', { name: 'path-phone' });
  const device = new SimulatedDevice({ brokerUrl: `mqtt://127.0.0.1:${gateway.mqttPort}`, ...credentialsOf(registered) });
  await device.connect();
  await call('POST', '/webhooks', { url: receiver.url, events: ['sms.status_changed'] });

  const oneSms = async (text: string) => {
    const before = receiver.received.length;
    const sms = await call('POST', '/sms', { phone: '+79161234567', message: text });
    await receiver.waitFor(before + 3, undefined, 30_000);
    return sms.id as string;
  };
  await oneSms('warm-up: loads every file the path needs');

  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
  await session.post('Profiler.takePreciseCoverage');
  const queries: Query[] = [];
  const heard = (query: Query) => void queries.push(query);
  gateway.services.db.on('query', heard);
  await oneSms('the measured SMS');
  gateway.services.db.off('query', heard);
  const { result } = (await session.post('Profiler.takePreciseCoverage')) as { result: ScriptCoverage[] };
  await session.post('Profiler.stopPreciseCoverage');
  session.disconnect();

  const files = result
    .filter((script) => script.url.startsWith('file://'))
    .map((script) => ({
      path: relative(ROOT, fileURLToPath(script.url)),
      called: script.functions.filter((fn) => fn.functionName !== '' && fn.ranges[0]!.count > 0).map((fn) => `${fn.functionName} x${fn.ranges[0]!.count}`),
    }))
    .filter((file) => file.called.length > 0 && /^(src|broker)\//.test(file.path) && !file.path.startsWith('src/simulator/'))
    .sort((a, b) => (a.path < b.path ? -1 : 1));
  if (process.env.SHOW_FUNCTIONS) for (const file of files) console.log(`${file.path}: ${file.called.join(', ')}`);
  const byFolder = new Map<string, string[]>();
  for (const { path } of files) {
    const parts = path.split('/');
    const folder = parts.slice(0, Math.min(path.startsWith('src/modules/') ? 3 : 2, parts.length - 1)).join('/');
    byFolder.set(folder, [...(byFolder.get(folder) ?? []), path.slice(folder.length + 1)]);
  }
  for (const [folder, names] of byFolder) console.log(`${folder}/ (${names.length}): ${names.join(', ')}`);
  console.log(`one SMS, POST to the last of its three webhooks, ran code in ${files.length} files of src/ and broker/`);
  printQueries(queries);

  await device.stop();
  await receiver.stop();
  await gateway.stop();
}

/** The queries of each status batch (its transaction's, BEGIN and COMMIT left out), and those on other features' tables. */
function printQueries(queries: Query[]): void {
  const byTransaction = new Map<string, string[]>();
  for (const query of queries) {
    if (!query.__knexTxId || /^(BEGIN|COMMIT|ROLLBACK)/i.test(query.sql)) continue;
    byTransaction.set(query.__knexTxId, [...(byTransaction.get(query.__knexTxId) ?? []), query.sql]);
  }
  if (process.env.SHOW_SQL) for (const [id, sqls] of byTransaction) console.log(id, sqls.map((sql) => sql.slice(0, 90)));
  const batches = [...byTransaction.values()].filter((sqls) => sqls.some((sql) => /update sms set status = v\.status/.test(sql)));
  for (const [index, sqls] of batches.entries()) {
    const other = sqls.filter((sql) => OTHER_FEATURES.test(sql));
    console.log(`status batch ${index + 1}: ${sqls.length} queries, ${other.length} on other features' tables${other.length > 0 ? ` (${other.map((sql) => OTHER_FEATURES.exec(sql)![1]).join(', ')})` : ''}`);
  }
  const other = queries.filter((query) => OTHER_FEATURES.test(query.sql));
  console.log(`the whole window: ${queries.length} queries, ${other.length} on other features' tables${other.length > 0 ? ` (${other.map((query) => OTHER_FEATURES.exec(query.sql)![1]).join(', ')})` : ''}`);
}

await main();
