// `sms-gateway serve`: runs the gateway until SIGINT/SIGTERM, then drains and closes cleanly.
import { rmSync, writeFileSync } from 'node:fs';
import { resolve as resolvePath } from 'node:path';
import { loadConfig } from '../../config.ts';
import { createLogger, type Logger } from '../../common/logger.ts';
import { prepareDataDir } from '../../storage/data-dir-permissions.ts';
import type { FirstStart } from '../../modules/accounts/bootstrap.ts';
import { NAMED_ONLY } from '../../modules/api-keys/permissions.ts';
import { DEFAULT_PASSWORD_HASH_COST } from '../../modules/users/passwords.ts';
import { parseFlags } from '../flags.ts';
import { settingsHelp } from '../settings-help.ts';
import { gatewayBaseUrl } from '../gateway-address.ts';
import { EXTENDED_PREFIX } from '../../http/extended-prefix.ts';
import type { Output } from '../output.ts';
import { makeDirectory } from '../../common/make-directory.ts';

const USAGE = 'usage: sms-gateway serve [--json]   (configured through environment variables: sms-gateway serve --help lists them)';

/** `serve --help`: what it does and every setting, with its default. */
export function serveUsage(): string {
  return [
    'usage: sms-gateway serve [--json]',
    'Runs the gateway (HTTP API, control panel, MQTT broker for the phones) until SIGINT or SIGTERM.',
    '--json writes the first-start banner (the first API key, the administrator\'s one-time password)',
    'as one JSON document, and a failure to start as {"error": ...}; the log is JSON either way (LOG_FORMAT).',
    'It is configured through these environment variables (default, then meaning):',
    '',
    settingsHelp(),
    '',
    'Files the gateway writes in DATA_DIR are readable by its user only; the README\'s "Configuration"',
    'section says more about each setting.',
  ].join('\n');
}

export async function serveCommand(args: string[], out: Output): Promise<void> {
  parseFlags(args, {}, USAGE);
  const config = loadConfig();
  const logger = createLogger(config.logLevel, undefined, config.nodeId, config.logFormat);
  prepareDataDir(config.dataDir, !config.databaseUrl, logger);
  // The gateway's code is loaded here, not with this file: `serve --help` (and a bad flag) answer
  // without loading the whole gateway first.
  const [{ Gateway }, { bootstrapFirstAccount }] = await Promise.all([import('../../gateway.ts'), import('../../modules/accounts/bootstrap.ts')]);
  const gateway = await Gateway.start(config, logger);
  // The port actually bound (PORT=0 picks one), where PUBLIC_URL does not say otherwise. Read
  // now: once a stop has begun the server no longer has one, and the banner must still be shown.
  const address = gatewayBaseUrl({ publicUrl: config.publicUrl, host: config.host, port: gateway.httpPort });

  // Signals are handled from the moment the gateway runs: a SIGTERM during the first start (an
  // scrypt hash takes a few hundred milliseconds) still stops it cleanly, exit code 0.
  let stopping = false;
  let draining: NodeJS.Timeout | undefined;
  const stopped = new Promise<void>((resolve) => {
    const stopNow = (signal: string) => {
      clearTimeout(draining);
      stopping = true;
      logger.info({ signal }, 'stopping');
      gateway.stop().then(resolve, (error: unknown) => {
        logger.error({ err: error }, 'unclean stop');
        process.exitCode = 1;
        resolve();
      });
    };
    const stop = (signal: string) => {
      if (stopping) return;
      // SHUTDOWN_DRAIN: first out of the balancer (/readyz 503), then stop; a second signal stops at once.
      if (config.shutdownDrainMs > 0 && !draining) {
        logger.info({ signal, drainMs: config.shutdownDrainMs }, 'draining: /readyz answers 503 until the node stops');
        gateway.drain();
        draining = setTimeout(() => stopNow(signal), config.shutdownDrainMs);
        return;
      }
      stopNow(signal);
    };
    // `on`, not `once`: a second signal during the drain must not kill the process mid-stop.
    process.on('SIGINT', () => stop('SIGINT'));
    process.on('SIGTERM', () => stop('SIGTERM'));
  });

  if (config.sessions.passwordHashCost < DEFAULT_PASSWORD_HASH_COST) {
    logger.warn(
      { cost: config.sessions.passwordHashCost },
      `PASSWORD_HASH_COST is below ${DEFAULT_PASSWORD_HASH_COST}, OWASP's minimum for scrypt: stolen password hashes are cheaper to crack`,
    );
  }

  // A stop that began meanwhile may close the database under the first start: that is no error.
  const first = await bootstrapFirstAccount(gateway.services, config.adminEmail).catch((error: unknown) => {
    if (stopping) return undefined;
    throw error;
  });
  if (first) showFirstStart(firstStartBanner(first, address, out), config.dataDir, logger);

  await stopped;
}

/** The file the first-start banner goes to when no one watches the terminal. */
export const FIRST_START_FILE = 'first-start.txt';

/**
 * The banner holds the only copy of the key and of the administrator's one-time password, so it goes where a person reads it and no log
 * collector does: stdout carries the JSON logs, and a stderr that is not a terminal is usually
 * collected too. On a terminal it is printed on stderr; otherwise it is written to a file in
 * DATA_DIR that only this user can read (created with that mode, so it is never readable by
 * others even for a moment), and one log line without the key says where it is.
 */
function showFirstStart(banner: string, dataDir: string, logger: Logger): void {
  if (process.stderr.isTTY) {
    process.stderr.write(banner);
    return;
  }
  // DATA_DIR also holds the webhook key file with PostgreSQL; ':memory:' has no directory.
  const directory = resolvePath(dataDir === ':memory:' ? '.' : dataDir);
  const file = resolvePath(directory, FIRST_START_FILE);
  try {
    makeDirectory(directory, 0o700);
    // An older file (from a database since emptied) may have looser permissions: replace it.
    rmSync(file, { force: true });
    writeFileSync(file, banner, { mode: 0o600, flag: 'wx' });
    logger.info({ file }, 'first start: the new API key and the administrator\'s one-time password are in this file, readable by this user only; delete the file once the key is kept safe');
  } catch (error) {
    logger.error(
      { err: error, file },
      'first start: the new API key could not be written to its file; create one with `sms-gateway keys create --account default --permissions all`',
    );
  }
}

function firstStartBanner(first: FirstStart, address: string, out: Output): string {
  const base = `${address}${EXTENDED_PREFIX}`;
  const panel = `${address}/`;
  const auth = `-H "Authorization: Bearer ${first.key}"`;
  const json = '-H "Content-Type: application/json"';
  const admin = { email: first.admin.email, one_time_password: first.admin.password };
  return out.format({ first_start: { account: first.account, api_key: first.key, api: base, panel, admin } }, () =>
    [
      '',
      `First start: created account "${first.account}" and an API key with every permission but ${NAMED_ONLY.join(', ')}`,
      '(sends past the opt-out list, granted only when named), so it cannot make an owner user or a key',
      'holding it: the administrator below can, in the control panel.',
      'The key is shown this once (only its hash is stored). Keep it:',
      '',
      `  ${first.key}`,
      '',
      'Send an SMS (it waits as pending until a phone is connected):',
      `  curl -s -X POST ${base}/sms ${auth} ${json} -d '{"phone": "+79161234567", "message": "Hello from the gateway"}'`,
      '',
      'Register a phone (prints its MQTT credentials), then change its settings:',
      `  curl -s -X POST ${base}/devices ${auth} ${json} -d '{"name": "my-phone"}'`,
      `  curl -s -X PATCH ${base}/devices/<device id>/settings ${auth} ${json} -d '{"name_custom": "Office phone", "selected_sim": 0}'`,
      '',
      `API reference: ${address}/docs`,
      '',
      'Administrator (owner of the account, instance administrator):',
      `  email:              ${first.admin.email}`,
      `  one-time password:  ${first.admin.password}`,
      `Log in to the control panel at ${panel} with it; it must be changed at first login.`,
      '',
    ].join('\n'),
  );
}
