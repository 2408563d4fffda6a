// Drill: a command run with another DATA_DIR must not seal secrets with a key of its own, and a
// secret the gateway's key cannot open breaks its webhook once, not every request.
//
// The incident this guards against: without WEBHOOK_SECRET_KEY, each process takes its key from
// webhook-secret.key in its DATA_DIR. A `sms-gateway` command run with another DATA_DIR (another
// user's home, a container without the volume) made a key of its own, sealed a Twilio token or a
// webhook secret with it, and the gateway then failed on it at every request or retry. Now the
// database keeps a check value of the key (src/modules/webhooks/outbound/secret-key-check.ts): a command
// holding another key refuses before it seals anything, naming DATA_DIR and WEBHOOK_SECRET_KEY;
// and a webhook whose secret still cannot be opened is disabled with a reason that says so,
// logged once, its API answers staying what they are (the sender, src/modules/webhooks/outbound/sender.ts).
//
// Here a gateway with DATA_DIR A runs on a fresh database of the local PostgreSQL. Through the
// CLI with DATA_DIR A, two webhooks (pointing at a receiver on 127.0.0.1) and a Twilio
// credential are created as an operator would. Then the same commands with DATA_DIR
// /tmp/elsewhere-<random>: each must exit non-zero with a message naming DATA_DIR and
// WEBHOOK_SECRET_KEY, and the database must hold no new secret. The key check itself is timed
// in process. Then one webhook's sealed secret is replaced in the database by one sealed under
// another key, and so is the Twilio token; both webhooks are sent test events while the API is
// asked about them and the Twilio API is called with the credential's right token: the broken
// webhook must be disabled once (one log line, the reason naming WEBHOOK_SECRET_KEY in the API),
// the healthy one must get its events signed with its secret, the Twilio credential must be
// marked unreadable and logged once, each of its calls answered 401 with what to do, and no
// request may be answered 5xx (but 503, admission control's "come back later" on a loaded
// machine, counted apart); a test event to the disabled webhook is a 409.
//
//   npx tsx scripts/drills/secret-key-mismatch.ts
//
// Settings: SECRET_KEY_ATTEMPTS (refused runs of each command, 3), SECRET_KEY_TEST_EVENTS (test
// events sent to each webhook, 20), DRILL_PG_URL (the PostgreSQL maintenance database,
// postgres://postgres@127.0.0.1:5432/postgres).
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { Webhook } from 'standardwebhooks';
import { loadConfig, type Config } from '../../src/config.ts';
import { createLogger } from '../../src/common/logger.ts';
import { Gateway } from '../../src/gateway.ts';
import { PERMISSIONS } from '../../src/modules/api-keys/permissions.ts';
import { SecretBox } from '../../src/modules/webhooks/outbound/secret-box.ts';
import { verifySecretKey } from '../../src/modules/webhooks/outbound/secret-key-check.ts';
import { Receiver } from '../../test/support/receiver.ts';
import { readNumber, runDrill, sleep } from './support/drill-kit.ts';
import { freshDatabase } from './support/fresh-database.ts';

const NAME = 'secret-key-mismatch';
const ATTEMPTS = readNumber(NAME, 'SECRET_KEY_ATTEMPTS', 3, 1, 50);
const TEST_EVENTS = readNumber(NAME, 'SECRET_KEY_TEST_EVENTS', 20, 1, 500);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const ACCOUNT = `secret-key-drill-${randomBytes(3).toString('hex')}`;
/** In-process key checks timed, for the cost of one. */
const CHECKS = 200;
/** The sender disables the broken webhook within this of its first test event. */
const DISABLE_TIMEOUT_MS = 30_000;
/** Between two rounds of reads of the API: the drill reads along, it does not flood. */
const READ_PAUSE_MS = 50;
/** Compiling dist/ when it is stale: tsc over the whole gateway, minutes on a loaded machine. */
const BUILD_TIMEOUT_MS = 10 * 60_000;
const DISABLED_LOG = "webhook disabled: its signing secret cannot be decrypted with this gateway's key";
const TWILIO_UNREADABLE_LOG = "twilio credential unusable: its auth token cannot be decrypted with this gateway's key; rotate it";

const load = () => `load average ${loadavg().map((n) => n.toFixed(2)).join(' ')}`;

/** The gateway's log lines at warn and above, counted by message. */
class LogTally extends Writable {
  readonly counts = new Map<string, number>();
  override _write(chunk: Buffer, _encoding: string, done: () => void): void {
    for (const text of chunk.toString().split('\n')) {
      if (!text.trim()) continue;
      try {
        const line = JSON.parse(text) as { msg: string };
        this.counts.set(line.msg, (this.counts.get(line.msg) ?? 0) + 1);
      } catch {
        // not a log line
      }
    }
    done();
  }
}

interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
  ms: number;
}

/** `node bin/sms-gateway.js ...args` with these settings on top of this process's environment. */
function cli(args: string[], env: Record<string, string>, timeoutMs = 120_000): Promise<CliRun> {
  const begun = performance.now();
  return new Promise((resolve) => {
    execFile(process.execPath, ['bin/sms-gateway.js', ...args], { cwd: ROOT, env: { ...process.env, ...env }, timeout: timeoutMs }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
      resolve({ code, stdout, stderr, ms: performance.now() - begun });
    });
  });
}

async function main(): Promise<string | undefined> {
  // The command compiles dist/ first when the sources changed (minutes on a loaded machine): done
  // here, before anything is timed.
  const build = await cli(['--version'], {}, BUILD_TIMEOUT_MS);
  if (build.code !== 0) return `the command could not be built (exit ${build.code}): ${build.stderr.trim().slice(0, 300)}`;
  console.log(`sms-gateway command ready in ${(build.ms / 1000).toFixed(1)} s (dist/ built when stale); ${load()}`);
  const database = await freshDatabase('secret_key');
  const dataDir = mkdtempSync(join(tmpdir(), 'sgw-secret-key-a-'));
  const elsewhere = join(tmpdir(), `elsewhere-${randomBytes(4).toString('hex')}`);
  const receiver = new Receiver();
  let gateway: Gateway | undefined;
  try {
    await receiver.start();
    const defaults = loadConfig({});
    const config: Config = {
      ...defaults,
      port: 0,
      host: '127.0.0.1',
      mqttPort: 0,
      databaseUrl: database.url,
      dataDir,
      logLevel: 'warn',
      webhooks: { ...defaults.webhooks, allowedHosts: ['127.0.0.1'] },
    };
    const tally = new LogTally();
    gateway = await Gateway.start(config, createLogger(config.logLevel, tally));
    const account = await gateway.services.accounts.create(ACCOUNT);
    const { key } = await gateway.services.apiKeys.create(account.id, [...PERMISSIONS]);
    const db = gateway.services.db;
    const apiUrl = `http://127.0.0.1:${gateway.httpPort}/api/ext/v1`;
    console.log(`gateway on 127.0.0.1:${gateway.httpPort}, DATA_DIR ${dataDir}, fresh PostgreSQL database; receiver ${receiver.url}; ${load()}`);

    // As an operator would: the commands with the gateway's DATA_DIR.
    const env = (dir: string) => ({ DATABASE_URL: database.url, DATA_DIR: dir, WEBHOOK_ALLOWED_HOSTS: '127.0.0.1', LOG_LEVEL: 'warn' });
    const webhookArgs = ['webhooks', 'create', '--account', ACCOUNT, '--url', receiver.url, '--events', 'all', '--json'];
    const twilioArgs = ['twilio', 'credentials', 'create', '--account', ACCOUNT, '--name', 'drill', '--json'];
    const made = [await cli(webhookArgs, env(dataDir)), await cli(webhookArgs, env(dataDir)), await cli(twilioArgs, env(dataDir))];
    const failedToMake = made.find((run) => run.code !== 0);
    if (failedToMake) return `a command with the gateway's DATA_DIR failed (exit ${failedToMake.code}): ${failedToMake.stderr.trim() || failedToMake.stdout.trim()}`;
    const created = (run: CliRun) => JSON.parse(run.stdout) as { webhook: { id: string }; secret: string };
    const healthy = created(made[0]!);
    const broken = created(made[1]!);
    const twilio = JSON.parse(made[2]!.stdout) as { account_sid: string; auth_token: string };
    console.log(`with DATA_DIR A: 2 webhooks and 1 Twilio credential created through the CLI (${made.map((run) => `${run.ms.toFixed(0)} ms`).join(', ')}); ${load()}`);

    const secrets = async () => ({
      webhooks: Number((await db('webhooks').count<{ n: string }[]>({ n: '*' }))[0]!.n),
      twilio: Number((await db('twilio_credentials').count<{ n: string }[]>({ n: '*' }))[0]!.n),
      check: ((await db('secret_key_check').select('check_value')) as { check_value: string }[]).map((row) => row.check_value).join(','),
    });
    const before = await secrets();

    // The same commands with another DATA_DIR: each refuses before it seals anything.
    const refused: CliRun[] = [];
    for (let i = 0; i < ATTEMPTS; i++) refused.push(await cli(webhookArgs, env(elsewhere)), await cli(twilioArgs, env(elsewhere)));
    const after = await secrets();
    const accepted = refused.filter((run) => run.code === 0);
    const unclear = refused.filter((run) => run.code !== 0 && !(run.stderr.includes('DATA_DIR') && run.stderr.includes('WEBHOOK_SECRET_KEY')));
    const refusedMs = refused.map((run) => run.ms).sort((a, b) => a - b);
    console.log(
      `with DATA_DIR ${elsewhere}: ${refused.length} commands (webhooks create, twilio credentials create), ${refused.length - accepted.length} exited non-zero, ` +
        `${refused.length - accepted.length - unclear.length} naming DATA_DIR and WEBHOOK_SECRET_KEY; ${refusedMs[0]!.toFixed(0)}-${refusedMs.at(-1)!.toFixed(0)} ms a command; ` +
        `secret rows before ${before.webhooks} webhooks + ${before.twilio} Twilio, after ${after.webhooks} + ${after.twilio}; ${load()}`,
    );
    console.log(`  the refusal: ${refused[0]!.stderr.trim().split('\n').slice(0, 3).join(' / ')}`);
    if (accepted.length > 0) return `${accepted.length} of ${refused.length} commands with another DATA_DIR succeeded: ${accepted[0]!.stdout.trim().slice(0, 200)}`;
    if (unclear.length > 0) return `${unclear.length} refusals did not name DATA_DIR and WEBHOOK_SECRET_KEY: ${unclear[0]!.stderr.trim().slice(0, 300)}`;
    if (after.webhooks !== before.webhooks || after.twilio !== before.twilio || after.check !== before.check) {
      return `the database changed under the refused commands: webhooks ${before.webhooks} -> ${after.webhooks}, Twilio credentials ${before.twilio} -> ${after.twilio}, key check ${after.check === before.check ? 'same' : 'changed'}`;
    }

    // What one check costs (the key's HMAC and one read), against a key that is not the database's.
    const stranger = new SecretBox(randomBytes(32), { kind: 'variable' });
    const checkBegun = performance.now();
    let checkRefusals = 0;
    for (let i = 0; i < CHECKS; i++) await verifySecretKey(db, stranger).catch(() => checkRefusals++);
    const perCheckMs = (performance.now() - checkBegun) / CHECKS;
    console.log(`key check in process: ${checkRefusals}/${CHECKS} refused the other key, ${perCheckMs.toFixed(2)} ms a check; ${load()}`);
    if (checkRefusals !== CHECKS) return `the key check let ${CHECKS - checkRefusals} of ${CHECKS} checks of another key pass`;

    // One webhook's secret, and the Twilio token, as a command with another key would have sealed them.
    await db('webhooks').where({ id: broken.webhook.id }).update({ secret_encrypted: stranger.seal(`whsec_${randomBytes(24).toString('base64')}`) });
    await db('twilio_credentials').where({ sid: twilio.account_sid }).update({ auth_token_encrypted: stranger.seal(twilio.auth_token) });
    const disabled = new Promise<number>((resolve) => {
      gateway!.services.webhookSender.on('disabled', (webhooks) => {
        if (webhooks.some((webhook) => webhook.id === broken.webhook.id)) resolve(performance.now());
      });
    });
    const statuses = new Map<string, number>();
    const latencies: number[] = [];
    const twilioPath = `/2010-04-01/Accounts/${twilio.account_sid}/Messages.json`;
    const twilioAuth = `Basic ${Buffer.from(`${twilio.account_sid}:${twilio.auth_token}`).toString('base64')}`;
    /** A call to the Extended API, or with `path` under /2010-04-01 to the Twilio API with the credential's own (right) token. */
    const call = async (method: string, path: string): Promise<number> => {
      const begun = performance.now();
      const [url, authorization] = path === twilioPath ? [`http://127.0.0.1:${gateway!.httpPort}${path}`, twilioAuth] : [`${apiUrl}${path}`, `Bearer ${key}`];
      const response = await fetch(url, { method, headers: { authorization }, signal: AbortSignal.timeout(20_000) }).catch(() => undefined);
      await response?.arrayBuffer();
      latencies.push(performance.now() - begun);
      const named = path.replace(broken.webhook.id, ':broken').replace(healthy.webhook.id, ':healthy').replace(twilio.account_sid, ':sid');
      const what = `${method} ${named} ${response ? response.status : 'error'}`;
      statuses.set(what, (statuses.get(what) ?? 0) + 1);
      return response?.status ?? 0;
    };
    const sentAt = performance.now();
    let watching = true;
    const reads = (async () => {
      while (watching) {
        await Promise.all([call('GET', '/webhooks'), call('GET', `/webhooks/${broken.webhook.id}`), call('GET', `/webhooks/${broken.webhook.id}/deliveries`), call('GET', `/webhooks/${healthy.webhook.id}`), call('GET', twilioPath)]);
        await sleep(READ_PAUSE_MS);
      }
    })();
    await Promise.all(Array.from({ length: TEST_EVENTS }, () => [call('POST', `/webhooks/${broken.webhook.id}/test`), call('POST', `/webhooks/${healthy.webhook.id}/test`)]).flat());
    const disabledAt = await Promise.race([disabled, new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), DISABLE_TIMEOUT_MS))]);
    // The test events the API took (a loaded gateway may turn some away with 503, come back later).
    const healthyTests = statuses.get(`POST /webhooks/:healthy/test 202`) ?? 0;
    const delivered = await receiver.waitFor(healthyTests, (request) => request.status < 300, 30_000).catch(() => receiver.received.filter((request) => request.status < 300));
    watching = false;
    await reads;
    const afterwards = await call('POST', `/webhooks/${broken.webhook.id}/test`);
    const view = (await (await fetch(`${apiUrl}/webhooks/${broken.webhook.id}`, { headers: { authorization: `Bearer ${key}` } })).json()) as { enabled: boolean; disabled_reason: string | null };
    const verifier = new Webhook(healthy.secret);
    const signed = delivered.filter((request) => {
      try {
        verifier.verify(request.body, request.headers as Record<string, string>);
        return true;
      } catch {
        return false;
      }
    }).length;
    const fromBroken = receiver.received.length - delivered.length;
    const disabledLogs = tally.counts.get(DISABLED_LOG) ?? 0;
    const twilioLogs = tally.counts.get(TWILIO_UNREADABLE_LOG) ?? 0;
    const twilioMarked = ((await db('twilio_credentials').where({ sid: twilio.account_sid }).first('auth_token_unreadable_at')) as { auth_token_unreadable_at: Date | null }).auth_token_unreadable_at !== null;
    const twilioAnswers = [...statuses].filter(([what]) => what.startsWith(`GET /2010-04-01`));
    const twilioUnexpected = twilioAnswers.filter(([what]) => !what.endsWith(' 401') && !what.endsWith(' 503')).reduce((sum, [, n]) => sum + n, 0);
    // 503 is admission control on a loaded machine ("come back later", with Retry-After), not a
    // failure of the request: counted apart. Any other 5xx, or no answer, fails the drill.
    const serverErrors = [...statuses].filter(([what]) => /\s(5\d\d|error)$/.test(what) && !what.endsWith(' 503')).reduce((sum, [, n]) => sum + n, 0);
    const overloaded = [...statuses].filter(([what]) => what.endsWith(' 503')).reduce((sum, [, n]) => sum + n, 0);
    const requests = [...statuses.values()].reduce((sum, n) => sum + n, 0);
    latencies.sort((a, b) => a - b);
    const p99 = latencies[Math.min(latencies.length - 1, Math.floor(0.99 * latencies.length))] ?? 0;
    console.log(
      `broken secret: webhook disabled ${disabledAt === undefined ? 'never' : `${((disabledAt - sentAt) / 1000).toFixed(2)} s after the first test event`}; ` +
        `"${DISABLED_LOG}" logged ${disabledLogs}x; API: ${requests} requests, ${serverErrors} answered 5xx (503 apart) or not at all, ${overloaded} answered 503 by admission control, p99 ${p99.toFixed(0)} ms ` +
        `(${[...statuses].map(([what, n]) => `${n}x ${what}`).join(', ')}); a test event to it afterwards: ${afterwards}; ${load()}`,
    );
    console.log(`  its view: enabled ${view.enabled}, disabled_reason "${view.disabled_reason}"`);
    console.log(`broken Twilio token: ${twilioAnswers.map(([what, n]) => `${n}x ${what}`).join(', ')} with its right token; marked unreadable ${twilioMarked}; "${TWILIO_UNREADABLE_LOG}" logged ${twilioLogs}x`);
    console.log(`healthy webhook: ${delivered.length}/${healthyTests} test events taken delivered, ${signed} with a valid signature; requests reaching the receiver otherwise: ${fromBroken}`);
    console.log(`gateway warnings and errors: ${[...tally.counts].map(([msg, n]) => `${n}x "${msg}"`).join(', ') || 'none'}`);

    if (disabledAt === undefined) return `the webhook with the broken secret was not disabled within ${DISABLE_TIMEOUT_MS / 1000} s`;
    if (disabledLogs !== 1) return `the broken secret was logged ${disabledLogs} times, not once`;
    if (view.enabled || !view.disabled_reason?.includes('WEBHOOK_SECRET_KEY')) return `the broken webhook's view does not say why (enabled ${view.enabled}, disabled_reason "${view.disabled_reason}")`;
    if (serverErrors > 0) return `${serverErrors} of ${requests} API requests were answered 5xx other than 503, or not at all`;
    if (twilioAnswers.length === 0 || twilioUnexpected > 0) return `the Twilio API answered the credential whose token cannot be opened ${twilioAnswers.map(([what, n]) => `${n}x ${what}`).join(', ') || 'never'}, not 401 each time`;
    if (!twilioMarked || twilioLogs !== 1) return `the unreadable Twilio token was ${twilioMarked ? '' : 'not '}marked and logged ${twilioLogs} times, not once`;
    if (afterwards !== 409) return `a test event to the disabled webhook was answered ${afterwards}, not 409`;
    if (healthyTests === 0 || signed !== healthyTests || delivered.length !== healthyTests) return `the healthy webhook got ${delivered.length} of the ${healthyTests} test events the API took, ${signed} signed with its secret`;
    if (fromBroken > 0) return `${fromBroken} deliveries of the broken webhook reached the receiver`;
    console.log(
      `DRILL ${NAME}: PASS ${refused.length}/${refused.length} commands with another DATA_DIR refused naming DATA_DIR and WEBHOOK_SECRET_KEY (${refusedMs[0]!.toFixed(0)}-${refusedMs.at(-1)!.toFixed(0)} ms each), no secret row added; ` +
        `key check ${perCheckMs.toFixed(2)} ms; broken secret: webhook disabled in ${((disabledAt - sentAt) / 1000).toFixed(2)} s, logged once; Twilio token unreadable: ${statuses.get(`GET ${twilioPath.replace(twilio.account_sid, ':sid')} 401`) ?? 0} calls answered 401, marked and logged once; ${requests} API requests with no 5xx other than ${overloaded}x 503 from admission control (p99 ${p99.toFixed(0)} ms); ` +
        `healthy webhook ${signed}/${healthyTests} signed deliveries; ${load()}`,
    );
    return undefined;
  } finally {
    await gateway?.stop().catch(() => {});
    await receiver.stop().catch(() => {});
    await database.drop().catch(() => {});
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(elsewhere, { recursive: true, force: true });
  }
}


runDrill(NAME, BUILD_TIMEOUT_MS + 10 * 60_000, main);
