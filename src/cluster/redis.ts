// The node's connection to the Redis that several nodes share (REDIS_URL, or the master of a
// Sentinel group: REDIS_SENTINELS, see redis-options.ts). Only made when one is set: a single node
// never connects to Redis.
//
// ioredis rather than node-redis: the broker's cluster emitter (mqemitter-redis, see
// mqtt-emitter.ts) is built on ioredis, so one client library, one set of reconnect rules and one set of
// quirks serve the whole node. It reconnects by itself, and resubscribes after a reconnect.
//
// Redis is a convenience here, never a dependency of serving: while it is down, publishing is a
// no-op that fails at once (no offline queue that would replay stale messages later), nothing is
// thrown back at a request, and the outage is logged once when it starts and once when it ends.
import { Redis, type RedisOptions } from 'ioredis';
import type { Logger } from '../common/logger.ts';
import { describeRedisTarget, redisConnectionOptions, type RedisRole, type RedisTarget } from './redis-options.ts';

export { RECONNECT_MAX_MS } from './redis-options.ts';

/** How long a start waits for Redis before it goes on without it (it keeps trying meanwhile). */
const START_WAIT_MS = 3_000;

/** The options of a commands connection to one server by URL, for a connection made elsewhere (benchmarks). */
export function redisOptions(): RedisOptions {
  return redisConnectionOptions({ url: '' }, 'commands');
}

/** A connection to the deployment's Redis: reconnects forever, follows a Sentinel failover, never queues a command while down (the subscriber queues its SUBSCRIBEs). */
export function openRedisConnection(target: RedisTarget, role: RedisRole): Redis {
  const options = redisConnectionOptions(target, role);
  return 'url' in target ? new Redis(target.url, options) : new Redis(options);
}

/**
 * An error of a Redis connection as a log may carry it: its kind and message only. ioredis hangs
 * the failed command on the error, and for a refused login that is HELLO or AUTH with the password.
 */
export function redisErrorForLog(error: unknown): { type: string; message: string; code?: string } | undefined {
  if (!(error instanceof Error)) return error === undefined ? undefined : { type: typeof error, message: String(error) };
  const code = (error as { code?: unknown }).code;
  return { type: error.name, message: error.message, ...(typeof code === 'string' ? { code } : {}) };
}

export type MessageHandler = (channel: string, message: string) => void;

export class RedisLink {
  /** Commands (publish, ping). A subscribed connection can do nothing else, hence two. */
  private readonly commands: Redis;
  private readonly subscriber: Redis;
  private readonly ready = new Set<Redis>();
  /** When Redis was last seen gone; undefined while it is up (or before it was ever down). */
  private downSince: number | undefined;
  private everUp = false;
  private closing = false;
  private readonly backListeners: (() => void)[] = [];
  private readonly messageListeners: MessageHandler[] = [];

  constructor(
    private readonly target: RedisTarget,
    private readonly logger: Logger,
  ) {
    this.commands = openRedisConnection(target, 'commands');
    // The subscriber queues its SUBSCRIBE until the first connection is made; ioredis repeats it after every reconnect.
    this.subscriber = openRedisConnection(target, 'subscriber');
    for (const connection of [this.commands, this.subscriber]) this.watch(connection);
    this.subscriber.on('message', (channel: string, message: string) => {
      for (const listener of this.messageListeners) listener(channel, message);
    });
  }

  /** The command connection, for what other parts of the cluster keep in Redis. Fails at once while Redis is down. */
  get client(): Redis {
    return this.commands;
  }

  /** Whether both connections are up now. */
  get up(): boolean {
    return this.ready.size === 2;
  }

  /** Waits (a few seconds at most) for the first connection; a node starts without Redis rather than not at all. */
  async started(): Promise<void> {
    if (this.up) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, START_WAIT_MS);
      timer.unref();
      const connections = [this.commands, this.subscriber];
      const check = () => {
        if (this.up) done();
      };
      function done() {
        clearTimeout(timer);
        for (const connection of connections) connection.off('ready', check);
        resolve();
      }
      for (const connection of connections) connection.on('ready', check);
    });
    if (!this.up) this.markDown(new Error(`no answer within ${START_WAIT_MS} ms`));
  }

  /** Called with every message of the channels subscribed to. */
  onMessage(listener: MessageHandler): void {
    this.messageListeners.push(listener);
  }

  /** Called each time Redis is back after an outage: what was published meanwhile never arrived here. */
  onBack(listener: () => void): void {
    this.backListeners.push(listener);
  }

  async subscribe(channel: string): Promise<void> {
    await this.subscriber.subscribe(channel);
  }

  /** Publishes, or does nothing when Redis is down (said once, by the outage log). Never throws. */
  publish(channel: string, message: string): void {
    if (!this.up) return;
    this.commands.publish(channel, message).catch((error: unknown) => this.markDown(error));
  }

  /** For /readyz: resolves when Redis answers a PING now. */
  async check(): Promise<void> {
    if (!this.up) throw new Error('redis unavailable');
    await this.commands.ping();
  }

  /** Closes both connections now: nothing is waiting to be written (publishing never queues), and QUIT would wait for a Redis that may be gone. */
  async close(): Promise<void> {
    this.closing = true;
    for (const connection of [this.commands, this.subscriber]) connection.disconnect();
  }

  private watch(connection: Redis): void {
    connection.on('ready', () => {
      this.ready.add(connection);
      if (this.up) this.markUp();
    });
    connection.on('close', () => {
      this.ready.delete(connection);
      if (!this.closing) this.markDown(undefined);
    });
    // Without a listener ioredis prints every failed reconnect; the outage is logged once instead.
    connection.on('error', (error: unknown) => this.markDown(error));
  }

  private markDown(error: unknown): void {
    if (this.closing || this.downSince !== undefined) return;
    this.downSince = Date.now();
    // The error names host and port at most, never the URL (which may carry the password), nor the failed command (a login carries it).
    this.logger.warn({ err: redisErrorForLog(error) }, 'Redis unavailable: caches of other nodes are not told of changes; serving goes on');
  }

  private markUp(): void {
    const wasDown = this.downSince;
    this.downSince = undefined;
    if (!this.everUp) {
      this.everUp = true;
      if (wasDown === undefined) {
        this.logger.info(describeRedisTarget(this.target), 'Redis connected');
        return;
      }
    }
    if (wasDown === undefined) return;
    this.logger.info({ outageMs: Date.now() - wasDown }, 'Redis back');
    for (const listener of this.backListeners) listener();
  }
}
