// What a node shares with the other nodes of a deployment, all through one Redis (REDIS_URL):
// cache invalidation, which node holds which phone (presence), wake-ups for new work, no_store
// SMS for a phone on another node, the panel's live events, and the broker's message bus and
// retained messages. PostgreSQL stays the queue and the record; Redis
// only carries what nodes must learn from each other quickly, and a node keeps serving its own
// phones while Redis is down. Without REDIS_URL there is no cluster: no connection, nothing changes.
import type { Config } from '../config.ts';
import { ConfigError, EMBEDDED_WITH_REDIS } from '../config.ts';
import type { Logger } from '../common/logger.ts';
import type { Services } from '../services.ts';
import type { BrokerCluster } from '../../broker/device-channel.ts';
import { RedisLink } from './redis.ts';
import { ClusterPresence } from './presence.ts';
import { ClusterWakeUps } from './wake-ups.ts';
import { createClusterEmitter } from './mqtt-emitter.ts';
import { ClusterLiveRelay } from './live-relay.ts';
import { ClusterTransientHandOff } from './transient-handoff.ts';

/** As Aedes' own default emitter: listeners run at once per message. */
const EMITTER_CONCURRENCY = 1000;

export interface Cluster {
  /** For /readyz (checks.redis): resolves when Redis answers now. */
  check(): Promise<void>;
  /** What the broker shares; call once, when the broker starts. */
  broker(): BrokerCluster;
  /** After the broker has closed (its phones released). */
  stop(): Promise<void>;
}

/** Connects to Redis when REDIS_URL is set; undefined for a single node. */
export async function startCluster(config: Config, services: Services, logger: Logger): Promise<Cluster | undefined> {
  if (!config.redisUrl) return undefined;
  // loadConfig refuses this already; a gateway started from a Config built some other way too.
  if (!config.databaseUrl) throw new ConfigError([EMBEDDED_WITH_REDIS]);
  const { redisUrl, redisPrefix } = config;
  const link = new RedisLink(redisUrl, logger);
  await link.started();
  await services.invalidation.connect(link, redisPrefix);
  const presence = new ClusterPresence(link, redisPrefix, config.nodeId, config.presenceLeaseMs, services.presence, services.clock, logger);
  services.presence.useRemote(presence);
  await presence.start();
  services.metrics.gauge('cluster_nodes', 'Nodes of the deployment whose presence lease was alive at the last check', () => presence.counts.nodes);
  services.metrics.gauge('cluster_devices_elsewhere', 'Phones connected to the other nodes, as this node knows', () => presence.counts.phonesElsewhere);
  await new ClusterWakeUps(link, redisPrefix, logger).start(services.events, (work) => services.dispatcher.workArrived(work));
  const handOff = new ClusterTransientHandOff(link, redisPrefix, presence, services.metrics, logger);
  services.dispatcher.handOffTransients(handOff);
  await handOff.start((sms) => services.dispatcher.acceptTransient(sms));
  const live = new ClusterLiveRelay(services.live, link, redisPrefix, logger);
  services.live.useRelay(live);
  await live.start();
  logger.info({ instance: presence.instance, leaseMs: config.presenceLeaseMs }, 'joined the cluster');
  return {
    check: () => link.check(),
    broker: () => ({
      mq: createClusterEmitter({ url: redisUrl, prefix: redisPrefix, concurrency: EMITTER_CONCURRENCY }, services.metrics, logger),
      retained: { redis: link.client, key: `${redisPrefix}:mqtt:retained` },
      ownership: presence,
    }),
    stop: async () => {
      live.stop();
      await presence.stop();
      await link.close();
    },
  };
}
