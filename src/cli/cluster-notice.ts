// A command runs in a process of its own, whose services no gateway listens to. A change the
// gateways must act on at once is told to them the way one node tells the others: over Redis,
// when the deployment has one (REDIS_URL or REDIS_SENTINELS). Those changes are a device's token
// replaced (the node holding the phone's connection closes it), an API key revoked (every node
// drops it from its cache), an SMPP credential revoked (its sessions are unbound) and a webhook
// created or deleted (every node asks again whether the account listens for device events).
// Without Redis a gateway running beside the command is not told: it finds out at the phone's
// next heartbeat, when its caches expire (5 s), or at the session's next enquire_link.
import { loadConfig } from '../config.ts';
import { createLogger } from '../common/logger.ts';
import { CacheInvalidation } from '../cluster/invalidation.ts';
import { redisTarget } from '../cluster/redis-options.ts';
import type { AccountServices } from '../composition/command-features.ts';
import { withAccountServices } from './context.ts';

/**
 * Runs `run` on services whose cache invalidation is joined to the deployment's Redis, if any, so
 * that the changes it makes are told to the gateways. `overHttp` as for withAccountServices.
 */
export async function withAccountServicesToldToTheCluster<T>(run: (services: AccountServices) => Promise<T>, overHttp?: (api: string) => string): Promise<T> {
  const config = loadConfig();
  const target = redisTarget(config);
  if (!target) return withAccountServices(run, overHttp);
  const logger = createLogger('warn', process.stderr as never, undefined, config.logFormat);
  // Loaded only here: a deployment without Redis does not pay for its client at every command.
  const { RedisLink } = await import('../cluster/redis.ts');
  const link = new RedisLink(target, logger);
  try {
    // Redis down: the change is made all the same, and the outage is logged on stderr.
    await link.started();
    const invalidation = new CacheInvalidation(logger, { link, prefix: config.redisPrefix });
    await invalidation.start();
    const result = await withAccountServices(run, overHttp, invalidation);
    // One connection answers in order: once the PING is answered, the PUBLISH before it was sent.
    await link.check().catch(() => undefined);
    return result;
  } finally {
    await link.close();
  }
}
