// The gateway a hostile-client drill attacks: in this process, on 127.0.0.1 with ports the system
// picks, the embedded database in memory, and otherwise the settings a deployment gets by
// default (admission control included), so that what the drill measures is what an operator
// would see. Two tenants: the hostile one and the other one, whose experience the drill reports.
import { loadConfig, type Config } from '../../../src/config.ts';
import { createLogger } from '../../../src/common/logger.ts';
import { Gateway } from '../../../src/gateway.ts';
import { PERMISSIONS } from '../../../src/modules/api-keys/permissions.ts';

export interface DrillTenant {
  accountId: string;
  key: string;
}

export interface DrillGateway {
  gateway: Gateway;
  baseUrl: string;
  hostile: DrillTenant;
  other: DrillTenant;
}

export async function startDrillGateway(overrides: Partial<Config> = {}): Promise<DrillGateway> {
  const defaults = loadConfig({});
  const config: Config = { ...defaults, port: 0, mqttPort: 0, host: '127.0.0.1', databaseUrl: undefined, dataDir: ':memory:', logLevel: 'silent', ...overrides };
  const gateway = await Gateway.start(config, createLogger(config.logLevel));
  const tenant = async (name: string): Promise<DrillTenant> => {
    const account = await gateway.services.accounts.create(name);
    const { key } = await gateway.services.apiKeys.create(account.id, [...PERMISSIONS]);
    return { accountId: account.id, key };
  };
  return { gateway, baseUrl: `http://127.0.0.1:${gateway.httpPort}`, hostile: await tenant('hostile'), other: await tenant('other') };
}

/** The drill's verdict line against the targets every hostile drill shares. */
export const TARGET_P99_MS = 200;
