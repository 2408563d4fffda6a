// One gateway node of a given release, for the rolling-upgrade drill: the gateway is loaded from
// RELEASE_NODE's `root` (this checkout, or a worktree of an older commit), so that two releases
// run side by side as they do during an upgrade. Its settings come from the environment as a
// deployed node's do (DATABASE_URL, REDIS_URL, REDIS_PREFIX, NODE_ID, WEBHOOK_SECRET_KEY), on
// ports of its own choosing. It answers {port, mqttPort, key} over IPC once listening (`key`: a
// new account's API key when RELEASE_NODE names a `tenant`), or {error} when it cannot start, and
// stops on SIGTERM.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const { root, tenant } = JSON.parse(process.env.RELEASE_NODE ?? '{}') as { root: string; tenant?: string };
const load = (path: string) => import(pathToFileURL(join(root, path)).href);
const { loadConfig } = await load('src/config.ts');
const { createLogger } = await load('src/common/logger.ts');
const { Gateway } = await load('src/gateway.ts');
const { PERMISSIONS } = await load('src/modules/api-keys/permissions.ts');

const logLevel = process.env.ROLLING_UPGRADE_LOG_LEVEL ?? 'error';
const config = { ...loadConfig(process.env), port: 0, mqttPort: 0, host: '127.0.0.1', dataDir: ':memory:', logLevel: 'warn' };
const gateway = await Gateway.start(config, logLevel === 'silent' ? createLogger('silent') : createLogger(logLevel, process.stderr, config.nodeId)).catch((error: Error) => {
  // Why it did not start, for the drill to print: its first line.
  process.send!({ error: error.message.split('\n')[0] }, () => process.exit(1));
  return new Promise<never>(() => {});
});
let key: string | undefined;
if (tenant) {
  const account = await gateway.services.accounts.create(tenant);
  key = (await gateway.services.apiKeys.create(account.id, [...PERMISSIONS])).key;
}
process.once('SIGTERM', () => {
  void gateway.stop().finally(() => process.exit(0));
});
process.send!({ port: gateway.httpPort, mqttPort: gateway.mqttPort, key });
