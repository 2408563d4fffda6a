// `npm run panel:preview`: a gateway on a fresh embedded database with something to look at: an
// owner (admin@localhost), a viewer, two simulated phones, a few SMS in every state, and a
// webhook. Prints the panel's address and the logins, and writes them to
// .tmp/panel-preview.json (or $PANEL_PREVIEW) for scripts/panel-shot.ts. For working on the panel; stop with Ctrl+C.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/common/logger.ts';
import { Gateway } from '../src/gateway.ts';
import { PERMISSIONS } from '../src/modules/api-keys/permissions.ts';
import { bootstrapFirstAccount, DEFAULT_ACCOUNT } from '../src/modules/accounts/bootstrap.ts';
import { Fleet } from '../src/simulator/fleet.ts';
import { ensurePanelBuilt } from './panel-build.js';

const PASSWORD = 'preview-password-1';
/** Where the address and logins are written; PANEL_PREVIEW names another file (several previews at once). */
const PREVIEW_FILE = process.env.PANEL_PREVIEW ?? '.tmp/panel-preview.json';
const dataDir = mkdtempSync(join(tmpdir(), 'sgw-panel-preview-'));
await ensurePanelBuilt();
const config = loadConfig({ ...process.env, DATA_DIR: dataDir, PORT: process.env.PORT ?? '0', MQTT_PORT: '0', HOST: '127.0.0.1', WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' });
const gateway = await Gateway.start(config, createLogger('warn'));
const { services } = gateway;
await bootstrapFirstAccount(services);
const account = await services.accounts.require(DEFAULT_ACCOUNT);
const admin = (await services.users.list(account.id)).find((user) => user.is_admin)!;
await services.users.resetPassword(admin.email, PASSWORD);
// A preview skips the forced change of a one-time password.
await services.db('users').where({ id: admin.id }).update({ must_change_password: false });
await services.users.create({ accountId: account.id, email: 'viewer@localhost', role: 'viewer', password: PASSWORD });
const { key } = await services.apiKeys.create(account.id, [...PERMISSIONS], 'preview key');

const http = `http://127.0.0.1:${gateway.httpPort}`;
const fleet = new Fleet({
  count: 2,
  apiUrl: http,
  apiKey: key,
  brokerUrl: `mqtt://127.0.0.1:${gateway.mqttPort}`,
  stateFile: join(dataDir, 'devices.json'),
  device: { delays: { processing: 300, sent: 600, delivered: 900 }, failSendRate: 0.2 },
});
await fleet.start();

const api = async (method: string, path: string, body?: unknown) => {
  const response = await fetch(`${http}/api/ext/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return response.json() as Promise<Record<string, unknown>>;
};
for (let i = 0; i < 12; i++) {
  await api('POST', '/sms', { phone: `+7916123${String(i).padStart(4, '0')}`, message: `Preview message ${i + 1}: your code is ${1000 + i}` });
}
await api('POST', '/webhooks', { url: 'http://127.0.0.1:9/hook', events: ['sms.status_changed'] });

const preview = { url: http, owner: { email: admin.email, password: PASSWORD }, viewer: { email: 'viewer@localhost', password: PASSWORD }, apiKey: key };
mkdirSync('.tmp', { recursive: true });
writeFileSync(PREVIEW_FILE, `${JSON.stringify(preview, null, 2)}\n`);
process.stdout.write(`\nControl panel: ${http}/\nOwner:  ${admin.email} / ${PASSWORD}\nViewer: viewer@localhost / ${PASSWORD}\n(written to ${PREVIEW_FILE})\n`);

const stop = async () => {
  await fleet.stop();
  await gateway.stop();
  rmSync(dataDir, { recursive: true, force: true });
  process.exit(0);
};
process.once('SIGINT', () => void stop());
process.once('SIGTERM', () => void stop());
