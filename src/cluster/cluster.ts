// What a node shares with the other nodes of a deployment. For now: cache invalidation over
// Redis. The broker, device presence and dispatch wake-ups are still each node's own (issue 13
// continues). Without REDIS_URL there is no cluster: no connection, nothing changes.
import type { Config } from '../config.ts';
import { ConfigError, EMBEDDED_WITH_REDIS } from '../config.ts';
import type { Logger } from '../common/logger.ts';
import type { CacheInvalidation } from './invalidation.ts';
import { RedisLink } from './redis.ts';

export interface Cluster {
  /** For /readyz (checks.redis): resolves when Redis answers now. */
  check(): Promise<void>;
  stop(): Promise<void>;
}

/** Connects to Redis when REDIS_URL is set; undefined for a single node. */
export async function startCluster(config: Config, invalidation: CacheInvalidation, logger: Logger): Promise<Cluster | undefined> {
  if (!config.redisUrl) return undefined;
  // loadConfig refuses this already; a gateway started from a Config built some other way too.
  if (!config.databaseUrl) throw new ConfigError([EMBEDDED_WITH_REDIS]);
  const link = new RedisLink(config.redisUrl, logger);
  await link.started();
  await invalidation.connect(link, config.redisPrefix);
  return {
    check: () => link.check(),
    stop: () => link.close(),
  };
}
