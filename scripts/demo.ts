// `npm run demo`: the gateway on the embedded defaults plus three simulated phones. Prints an
// API key and a curl command; every SMS sent with it is followed on screen as it goes
// pending -> processing -> sent -> delivered.
import { join } from 'node:path';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/common/logger.ts';
import { Gateway } from '../src/gateway.ts';
import { PERMISSIONS } from '../src/modules/api-keys/permissions.ts';
import { bootstrapFirstAccount, DEFAULT_ACCOUNT, type FirstStart } from '../src/modules/accounts/bootstrap.ts';
import { Fleet } from '../src/simulator/fleet.ts';
import { prepareDataDir } from '../src/storage/data-dir-permissions.ts';
import { maskPhone } from '../src/common/logger.ts';

const base = loadConfig({ ...process.env, DATA_DIR: process.env.DATA_DIR ?? './data/demo' });
// The demo must start anywhere: when a default port is taken, it takes a free one instead.
const gateway = await startOnFreePorts();
const { services } = gateway;
const login = await panelLogin(await bootstrapFirstAccount(services, base.adminEmail));
const account = await services.accounts.require(DEFAULT_ACCOUNT);
const { key } = await services.apiKeys.create(account.id, [...PERMISSIONS], 'demo key');

const http = `http://127.0.0.1:${gateway.httpPort}`;
const fleet = new Fleet({
  count: 3,
  apiUrl: http,
  apiKey: key,
  brokerUrl: `mqtt://127.0.0.1:${gateway.mqttPort}`,
  stateFile: join(base.dataDir, 'demo-devices.json'),
  // Slow enough to watch each step go by.
  device: { delays: { processing: 400, sent: 800, delivered: 1200 } },
});
await fleet.start();

services.events.on('sms.queued', (sms) => {
  const device = sms.device_id ? `for device ${sms.device_id.slice(0, 8)}` : 'in the pool, for the first phone with room';
  say(`SMS ${sms.id.slice(0, 8)} to ${maskPhone(sms.phone)}: pending (${device})`);
});
services.events.on('sms.status_changed', (changes) => {
  for (const change of changes) say(`SMS ${change.sms.id.slice(0, 8)}: ${change.path.join(' -> ')}`);
});

process.stdout.write(
  [
    '',
    `SMS gateway demo: API on ${http}, MQTT on port ${gateway.mqttPort}, ${fleet.devices.length} simulated phones online.`,
    '',
    `API key (all permissions): ${key}`,
    '',
    'Send an SMS and watch it travel:',
    `  curl -s -X POST ${http}/api/ext/v1/sms -H "Authorization: Bearer ${key}" -H "Content-Type: application/json" -d '{"phone": "+79161234567", "message": "Hello from the demo"}'`,
    '',
    `List the phones:  curl -s ${http}/api/ext/v1/devices -H "Authorization: Bearer ${key}"`,
    `API reference:    ${http}/docs`,
    '',
    `Control panel:    ${http}/`,
    `  email:              ${login.email}`,
    login.password
      ? `  one-time password:  ${login.password}   (it must be changed at first login)`
      : '  password:           the one you chose at your first login to this demo',
    '',
    'Ctrl-C stops the demo.',
    '',
  ].join('\n'),
);

await new Promise<void>((resolve) => {
  process.once('SIGINT', resolve);
  process.once('SIGTERM', resolve);
});
await fleet.stop();
await gateway.stop();

/**
 * The administrator's login to show. At the first run it is the one just created. At a later run
 * on the same DATA_DIR its one-time password is gone (only a hash is stored): while it has not
 * been replaced by one of the user's choosing, a new one-time password is issued, so the demo
 * always prints a login that works.
 */
async function panelLogin(first: FirstStart | undefined): Promise<{ email: string; password: string | undefined }> {
  if (first) return first.admin;
  const admin = await services.users.findByEmail(base.adminEmail);
  if (!admin) return { email: base.adminEmail, password: undefined };
  if (!admin.must_change_password) return { email: admin.email, password: undefined };
  const { oneTimePassword } = await services.users.resetPassword(admin.email);
  return { email: admin.email, password: oneTimePassword };
}

function say(line: string): void {
  process.stdout.write(`${new Date().toISOString().slice(11, 23)}  ${line}\n`);
}

async function startOnFreePorts(): Promise<Gateway> {
  const logger = createLogger(process.env.LOG_LEVEL ? base.logLevel : 'warn', undefined, undefined, base.logFormat);
  prepareDataDir(base.dataDir, !base.databaseUrl, logger);
  try {
    return await Gateway.start(base, logger);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    process.stdout.write('a default port is in use; the demo takes free ports instead\n');
    return Gateway.start({ ...base, port: 0, mqttPort: 0 }, logger);
  }
}
