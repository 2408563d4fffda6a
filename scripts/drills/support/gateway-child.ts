// A drill's gateway in a process of its own, so that the drill's clients (building and posting
// megabytes of hostile bodies, timing every call) do not share its event loop: what the drill
// measures is then the gateway's own delay, as a deployment would see it. Started by
// gateway-process.ts over an IPC channel with its settings in DRILL_GATEWAY (JSON: config
// overrides and the tenants to make). It sends {port, keys} once listening (and smtpPort when
// SMTP is on); asked 'loop-delay', it answers the longest event-loop delay since the last
// question; it stops on SIGTERM.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { loadConfig, type Config } from '../../../src/config.ts';
import { createLogger } from '../../../src/common/logger.ts';
import { Gateway } from '../../../src/gateway.ts';
import { PERMISSIONS } from '../../../src/modules/api-keys/permissions.ts';

interface ChildSettings {
  config: Partial<Config>;
  tenants: string[];
}

const settings = JSON.parse(process.env.DRILL_GATEWAY ?? '{}') as ChildSettings;
const config: Config = { ...loadConfig({}), port: 0, mqttPort: 0, host: '127.0.0.1', dataDir: ':memory:', logLevel: 'warn', ...settings.config };
const gateway = await Gateway.start(config, createLogger('silent'));
const keys: Record<string, string> = {};
for (const name of settings.tenants ?? []) {
  const account = await gateway.services.accounts.create(name);
  keys[name] = (await gateway.services.apiKeys.create(account.id, [...PERMISSIONS])).key;
}
const loopDelay = monitorEventLoopDelay({ resolution: 10 });
loopDelay.enable();
process.on('message', (question) => {
  if (question !== 'loop-delay') return;
  process.send!({ loopDelayMaxMs: loopDelay.max / 1e6 });
  loopDelay.reset();
});
process.once('SIGTERM', () => {
  void gateway.stop().finally(() => process.exit(0));
});
process.send!({ port: gateway.httpPort, keys, ...(config.smtp.port !== undefined ? { smtpPort: gateway.smtpPort } : {}) });
