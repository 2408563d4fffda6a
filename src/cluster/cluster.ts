// What a node shares with the other nodes of a deployment, all through one Redis (REDIS_URL):
// cache invalidation, which node holds which phone (presence), wake-ups for new work, no_store
// SMS for a phone on another node, the panel's live events, and the broker's message bus and
// retained messages. PostgreSQL stays the queue and the record; Redis
// only carries what nodes must learn from each other quickly, and a node keeps serving its own
// phones while Redis is down. Without REDIS_URL there is no cluster: no connection, nothing changes.
//
// Joined in two steps, so that nothing is attached to a service after it is made: connectCluster()
// connects to Redis and makes the parts the services are constructed with (what presence,
// delivery and the live hub ask of the other nodes, what the broker shares); start() then relays
// between the other nodes and this node's services.
import type { Config } from '../config.ts';
import { ConfigError, EMBEDDED_WITH_REDIS } from '../config.ts';
import type { Logger } from '../common/logger.ts';
import type { Clock } from '../common/clock.ts';
import type { Metrics } from '../common/metrics.ts';
import type { BrokerCluster } from '../../broker/ports.ts';
import type { RemotePresence } from '../modules/devices/remote-presence.ts';
import type { HandedOverSms, TransientHandOff } from '../modules/delivery/dispatcher.ts';
import type { LiveRelay } from '../modules/live/hub.ts';
import { CacheInvalidation } from './invalidation.ts';
import { RedisLink } from './redis.ts';
import { redisTarget } from './redis-options.ts';
import { ClusterPresence, type LocalPresence } from './presence.ts';
import { ClusterWakeUps, type QueuedSms, type WorkArrived } from './wake-ups.ts';
import { createClusterEmitter } from './mqtt-emitter.ts';
import { ClusterLiveRelay, type LocalLiveStreams } from './live-relay.ts';
import { ClusterTransientHandOff } from './transient-handoff.ts';

/** As Aedes' own default emitter: listeners run at once per message. */
const EMITTER_CONCURRENCY = 1000;

/** What the cluster relays between the other nodes and this node's services. */
export interface ClusterRelays {
  /** This node's presence: phones of dead nodes announced offline, its own restated. */
  presence: LocalPresence;
  /** This node's live streams. */
  live: LocalLiveStreams;
  /** Delivery on this node. */
  dispatcher: {
    /** Where the other nodes' new work goes. */
    workArrived(work: WorkArrived): void;
    /** A no_store SMS another node handed to a phone of this one; false if the phone is no longer here. */
    acceptTransient(sms: HandedOverSms): boolean;
  };
}

export interface Cluster {
  /** Tells the other nodes what to drop from their caches, and hears what they change. */
  invalidation: CacheInvalidation;
  /** What presence asks of the other nodes. */
  presence: RemotePresence;
  /** Where delivery hands no_store SMS for phones of other nodes. */
  transients: TransientHandOff;
  /** Live events to and from the streams open on other nodes. */
  live: LiveRelay;
  /** Wakes the other nodes for SMS queued here. */
  wakeUps: { queued(sms: QueuedSms): void };
  /** What the broker shares; call once, before the broker is made. */
  broker(): BrokerCluster;
  /** Starts relaying to the services, once they exist (before the broker listens). */
  start(relays: ClusterRelays): Promise<void>;
  /** For /readyz (checks.redis): resolves when Redis answers now. */
  check(): Promise<void>;
  /** After the broker has closed (its phones released). */
  stop(): Promise<void>;
}

/** Connects to Redis when REDIS_URL or REDIS_SENTINELS is set; undefined for a single node. */
export async function connectCluster(config: Config, clock: Clock, metrics: Metrics, logger: Logger): Promise<Cluster | undefined> {
  const target = redisTarget(config);
  if (!target) return undefined;
  // loadConfig refuses this already; a gateway started from a Config built some other way too.
  if (!config.databaseUrl) throw new ConfigError([EMBEDDED_WITH_REDIS]);
  const { redisPrefix } = config;
  const link = new RedisLink(target, logger);
  await link.started();
  const invalidation = new CacheInvalidation(logger, { link, prefix: redisPrefix });
  const presence = new ClusterPresence(link, redisPrefix, config.nodeId, config.presenceLeaseMs, clock, logger);
  const handOff = new ClusterTransientHandOff(link, redisPrefix, presence, metrics, logger);
  const live = new ClusterLiveRelay(link, redisPrefix, logger);
  const wakeUps = new ClusterWakeUps(link, redisPrefix, logger);
  return {
    invalidation,
    presence,
    transients: handOff,
    live,
    wakeUps,
    broker: () => ({
      mq: createClusterEmitter({ target, prefix: redisPrefix, concurrency: EMITTER_CONCURRENCY }, metrics, logger),
      retained: { redis: link.client, key: `${redisPrefix}:mqtt:retained` },
      ownership: presence,
    }),
    start: async (relays) => {
      await invalidation.start();
      await presence.start(relays.presence);
      metrics.gauge('cluster_nodes', 'Nodes of the deployment whose presence lease was alive at the last check', () => presence.counts.nodes);
      metrics.gauge('cluster_devices_elsewhere', 'Phones connected to the other nodes, as this node knows', () => presence.counts.phonesElsewhere);
      const { dispatcher } = relays;
      await wakeUps.start((work) => dispatcher.workArrived(work));
      await handOff.start((sms) => dispatcher.acceptTransient(sms));
      await live.start(relays.live);
      logger.info({ instance: presence.instance, leaseMs: config.presenceLeaseMs }, 'joined the cluster');
    },
    check: () => link.check(),
    stop: async () => {
      live.stop();
      await presence.stop();
      await link.close();
    },
  };
}
