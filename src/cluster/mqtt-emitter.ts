// The broker's message bus when several nodes share a Redis: Aedes' own cluster emitter,
// mqemitter-redis, so that a publish on one node reaches the subscribers on every node (an
// operator watching on node A sees a phone on node B), and Aedes' "new client" announcement
// closes a device's older connection on another node (one session per device).
//
// Two things differ from the stock emitter, both for the rule that Redis is never a dependency of
// serving the phones a node holds:
// - Local first. Stock mqemitter-redis delivers even a node's own messages only once they come
//   back from Redis: with Redis down, a task published to a phone on this very node would never
//   arrive, and every device report would wait for Redis before it is acknowledged. Here a
//   message is delivered to this node's subscribers at once, and published to Redis for the
//   others; its echo is recognised by its origin and dropped. While Redis is down only other
//   nodes miss it, and for them the database sweep re-sends what matters (tasks, settings).
// - Guarded input. Whoever can publish to the Redis can write to these channels: a message that
//   does not decode to a packet is counted and dropped, instead of throwing inside the connection's
//   event handler (which would end the process).
//
// The wire format stays mqemitter-redis' own (msgpack of {id, msg}), with the channel named by
// the packet's topic after `<REDIS_PREFIX>:mqtt:`.
import { createRequire } from 'node:module';
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Logger } from '../common/logger.ts';
import type { Metrics } from '../common/metrics.ts';
import { openRedisConnection, redisErrorForLog } from './redis.ts';
import type { RedisTarget } from './redis-options.ts';

const require = createRequire(import.meta.url);
const MQEmitter = require('mqemitter') as { prototype: { emit(message: Packet, done?: (error?: Error) => void): void } };
const MQEmitterRedis = require('mqemitter-redis') as EmitterConstructor & { MQEmitterRedisPrefix: EmitterConstructor };
const msgpack = require('msgpack-lite') as { decode(buffer: Buffer): unknown };

type Packet = Record<string, unknown> & { topic: string };
type Done = (error?: Error) => void;

/** The parts of mqemitter-redis this module uses (it ships no declaration of the prefix variant). */
interface RedisEmitter {
  _pubSubPrefix: string;
  _cache: { get(id: string): unknown; set(id: string, value: true): void };
  _emit(packet: Packet, done?: Done): void;
  subConn: Redis;
  pubConn: Redis;
  closed: boolean;
  emit(packet: Packet, done?: Done): void;
  on(topic: string, listener: (packet: Packet, done: () => void) => void, done?: () => void): unknown;
  removeListener(topic: string, listener: (packet: Packet, done: () => void) => void, done?: () => void): unknown;
  close(done: () => void): void;
}
type EmitterConstructor = { new (prefix: string, options: object): RedisEmitter; prototype: RedisEmitter };

/** The field that names the node a message came from (an extra field the stock emitter ignores). */
const ORIGIN = 'sgwOrigin';
/** How many decoded ids to remember, to drop a message that Redis delivers twice. */
const DEDUPLICATE = 10_000;

export interface ClusterEmitterOptions {
  /** The deployment's Redis (one server, or a Sentinel group's master), as RedisLink's. */
  target: RedisTarget;
  /** REDIS_PREFIX: the channels are `<prefix>:mqtt:<topic>`. */
  prefix: string;
  /** Same as Aedes' own default emitter: how many listeners run at once per message. */
  concurrency: number;
}

/** Creates the emitter Aedes is given as `mq`. `close()` it after the broker (Aedes does). */
export function createClusterEmitter(options: ClusterEmitterOptions, metrics: Metrics, logger: Logger): RedisEmitter {
  const origin = randomUUID();
  // Publishing never queues while Redis is down (the message would arrive stale, long after the
  // sweep did its work); the subscriber queues its SUBSCRIBEs and repeats them after a reconnect.
  // Both follow a Sentinel failover as RedisLink's connections do.
  const pubConn = openRedisConnection(options.target, 'commands');
  const subConn = openRedisConnection(options.target, 'subscriber');
  const emitter = new MQEmitterRedis.MQEmitterRedisPrefix(`${options.prefix}:mqtt:`, {
    pubConn,
    subConn,
    concurrency: options.concurrency,
    // As Aedes' own default emitter [MQTT-4.7.1-3].
    matchEmptyLevels: true,
    maxLRUCache: DEDUPLICATE,
  });
  const dropped = (reason: string) => metrics.count('cluster_mqtt_messages_dropped_total', 'Messages from other nodes dropped undelivered', { reason });
  // Errors are the connections' (RedisLink logs the outage for the node); without a listener
  // the emitter's state 'error' event would end the process.
  (emitter as unknown as { state: NodeJS.EventEmitter }).state.on('error', (error: unknown) => logger.debug({ err: redisErrorForLog(error) }, 'cluster emitter connection error'));
  for (const connection of [pubConn, subConn]) connection.on('error', () => undefined);

  // Replaces the stock handler: decode guarded, drop this node's own echoes.
  subConn.removeAllListeners('messageBuffer');
  subConn.removeAllListeners('pmessageBuffer');
  const receive = (payload: Buffer) => {
    const message = decode(payload);
    if (!message) return dropped('malformed');
    if (message.msg[ORIGIN] === origin) return;
    if (emitter._cache.get(message.id)) return;
    emitter._cache.set(message.id, true);
    MQEmitter.prototype.emit.call(emitter, message.msg);
  };
  subConn.on('messageBuffer', (_channel: Buffer, payload: Buffer) => receive(payload));
  subConn.on('pmessageBuffer', (_pattern: Buffer, _channel: Buffer, payload: Buffer) => receive(payload));

  const up = (connection: Redis) => connection.status === 'ready';
  const publishToRedis = MQEmitterRedis.prototype.emit;
  emitter.emit = function emit(packet: Packet, done?: Done) {
    if (emitter.closed) return done?.(new Error('the cluster emitter is closed'));
    const message: Packet = { ...packet, topic: emitter._pubSubPrefix + packet.topic, [ORIGIN]: origin };
    // Other nodes: best effort (a lost message is re-sent by the sweep on the node that needs it).
    if (up(pubConn)) publishToRedis.call(emitter, message, (error?: Error) => error && dropped('publish_failed'));
    MQEmitter.prototype.emit.call(emitter, message, done);
  };
  // With Redis down, subscribing or unsubscribing must not wait for it: local messages flow at
  // once, and ioredis sends the queued SUBSCRIBE or UNSUBSCRIBE when Redis is back.
  type SubscriptionChange = typeof emitter.on;
  const withoutWaitingForRedis = (change: SubscriptionChange): SubscriptionChange =>
    function changeSubscription(topic, listener, done) {
      if (up(subConn)) return change(topic, listener, done);
      change(topic, listener);
      if (done) setImmediate(done);
      return emitter;
    };
  emitter.on = withoutWaitingForRedis(emitter.on.bind(emitter));
  emitter.removeListener = withoutWaitingForRedis(emitter.removeListener.bind(emitter));
  const closeLocal = (MQEmitter.prototype as unknown as { close(done: () => void): void }).close;
  emitter.close = function close(done: () => void) {
    // QUIT would wait for a Redis that may be gone: nothing is queued for it, so cut now.
    pubConn.disconnect();
    subConn.disconnect();
    closeLocal.call(emitter, done);
  };
  return emitter;
}

function decode(payload: Buffer): { id: string; msg: Packet } | undefined {
  let value: unknown;
  try {
    value = msgpack.decode(payload);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const { id, msg } = value as { id?: unknown; msg?: unknown };
  if (typeof id !== 'string' || typeof msg !== 'object' || msg === null) return undefined;
  const topic = (msg as { topic?: unknown }).topic;
  if (typeof topic !== 'string') return undefined;
  return { id, msg: msg as Packet };
}
