// How every connection of a node to the Redis it shares with the other nodes is made, in one
// place: the commands connection and the subscriber of RedisLink, the broker's two (mqtt-emitter),
// and a command's own (src/cli/cluster-notice.ts). The Redis is named one of two ways:
// - REDIS_URL: one server, its password and database in the URL.
// - REDIS_SENTINELS with REDIS_SENTINEL_NAME: a master and its replicas watched by Redis Sentinel.
//   Each connection asks a sentinel where the master of the group is, checks that the server it
//   reached is a master (ROLE), and asks again after every lost connection, so that after a
//   failover the node's connections land on the promoted replica by themselves. A node cut off
//   from the master meanwhile lives through the failover as through any Redis outage: serving
//   goes on, what was published meanwhile is treated as missed once Redis is back.
//
// Only types of ioredis here: the configuration reads REDIS_SENTINELS through this file, and a
// node without Redis never loads the client.
import type { RedisOptions } from 'ioredis';

/** A sentinel's address as REDIS_SENTINELS lists it. */
export interface SentinelAddress {
  host: string;
  port: number;
}

/** REDIS_SENTINELS and what goes with it; passwords are never logged. */
export interface RedisSentinelSettings {
  sentinels: SentinelAddress[];
  /** REDIS_SENTINEL_NAME: the master group's name, as in the sentinels' `sentinel monitor <name> ...`. */
  name: string;
  /** REDIS_SENTINEL_PASSWORD: the sentinels' own (their `requirepass`); none: they are asked without one. */
  sentinelPassword: string | undefined;
  /** REDIS_PASSWORD: the master's and the replicas' (their `requirepass`, the same on each, as a failover needs). */
  password: string | undefined;
}

/** Where a node's Redis is: one server by URL, or the master of a Sentinel group. */
export type RedisTarget = { url: string } | { sentinel: RedisSentinelSettings };

/** The two Redis settings of the configuration; a node shares nothing when both are absent. */
export interface RedisTargetConfig {
  redisUrl: string | undefined;
  redisSentinel: RedisSentinelSettings | undefined;
}

/** The deployment's Redis, or undefined for a single node without one. */
export function redisTarget(config: RedisTargetConfig): RedisTarget | undefined {
  if (config.redisSentinel) return { sentinel: config.redisSentinel };
  if (config.redisUrl) return { url: config.redisUrl };
  return undefined;
}

/** Sentinel's own default port, for an entry of REDIS_SENTINELS without one. */
export const SENTINEL_DEFAULT_PORT = 26379;

/** Reconnect delays: doubling from 250 ms up to 5 s, and never giving up. */
const FIRST_RETRY_MS = 250;
const MAX_RETRY_MS = 5_000;
/**
 * With Sentinel, the doubling stops at 1 s: a failover is over within seconds, and each attempt
 * asks a sentinel first, so a node finds the promoted master about a second after it is named
 * rather than up to 5 s after.
 */
const MAX_SENTINEL_RETRY_MS = 1_000;
/** The longest wait between two reconnect attempts: nodes back after an outage are at most this far apart. */
export const RECONNECT_MAX_MS = MAX_RETRY_MS;
/**
 * With Sentinel, how long a connection attempt to the named master may take: a master whose
 * machine died answers nothing, and the node should ask the sentinels again soon rather than
 * after ioredis' default 10 s.
 */
const SENTINEL_CONNECT_TIMEOUT_MS = 3_000;

/**
 * The commands connection publishes and writes; a command fails at once while Redis is down. The
 * subscriber queues its SUBSCRIBEs until connected and repeats them after every reconnect.
 */
export type RedisRole = 'commands' | 'subscriber';

/** The options of one connection to `target` (with `{ url }`, the URL is given to ioredis beside them). */
export function redisConnectionOptions(target: RedisTarget, role: RedisRole): RedisOptions {
  const sentinel = 'sentinel' in target ? target.sentinel : undefined;
  const maxRetryMs = sentinel ? MAX_SENTINEL_RETRY_MS : MAX_RETRY_MS;
  const options: RedisOptions = {
    retryStrategy: (times) => Math.min(FIRST_RETRY_MS * 2 ** Math.min(times - 1, 10), maxRetryMs),
    // A command while Redis is down fails now instead of waiting for a reconnect that may be minutes away.
    enableOfflineQueue: role === 'subscriber',
    maxRetriesPerRequest: role === 'subscriber' ? null : 0,
    // A server that answers READONLY is a replica now (a master demoted by a failover, reached before
    // its clients were cut): reconnect, which asks the sentinels where the master is, and send the
    // command again there.
    reconnectOnError: (error) => (error.message.startsWith('READONLY') ? 2 : false),
  };
  if (!sentinel) return options;
  return {
    ...options,
    sentinels: sentinel.sentinels.map(({ host, port }) => ({ host, port })),
    name: sentinel.name,
    role: 'master',
    sentinelPassword: sentinel.sentinelPassword,
    password: sentinel.password,
    connectTimeout: SENTINEL_CONNECT_TIMEOUT_MS,
    // Not ioredis' failoverDetector (leave at +switch-master): when the announcement lands while
    // the connection is asking a sentinel for the master, ioredis ends the connection for good,
    // and the node would never find the new master. A demoted master is left all the same:
    // Sentinel closes its clients when it makes it a replica, and READONLY is handled above.
    failoverDetector: false,
    // While no sentinel answers, ask again every second (ioredis' own default grows to that too).
    sentinelRetryStrategy: (times) => Math.min(times * 100, MAX_SENTINEL_RETRY_MS),
  };
}

/** The master group's name: what Sentinel accepts, letters, digits and `.-_`. */
const GROUP_NAME = /^[A-Za-z0-9._-]{1,128}$/;

type Env = Record<string, string | undefined>;

/**
 * REDIS_SENTINELS, REDIS_SENTINEL_NAME, REDIS_SENTINEL_PASSWORD and REDIS_PASSWORD, checked
 * together; each problem names its variable (and never echoes a password). REDIS_URL with
 * REDIS_SENTINELS is refused: a node following one while another follows the other would serve
 * phones the rest of the deployment never hears of.
 */
export function readRedisSentinel(env: Env, problems: string[]): RedisSentinelSettings | undefined {
  const value = (name: string) => (env[name]?.trim() ? env[name] : undefined);
  const rawSentinels = value('REDIS_SENTINELS')?.trim();
  const name = value('REDIS_SENTINEL_NAME')?.trim();
  const sentinelPassword = value('REDIS_SENTINEL_PASSWORD');
  const password = value('REDIS_PASSWORD');
  if (!rawSentinels) {
    for (const [variable, given] of [
      ['REDIS_SENTINEL_NAME', name],
      ['REDIS_SENTINEL_PASSWORD', sentinelPassword],
    ] as const) {
      if (given !== undefined) problems.push(`${variable}: only used with REDIS_SENTINELS (the sentinels' host:port list); set it or unset ${variable}`);
    }
    if (password !== undefined) {
      problems.push('REDIS_PASSWORD: only used with REDIS_SENTINELS; with REDIS_URL the password is part of the URL (redis://:password@host:6379)');
    }
    return undefined;
  }
  const before = problems.length;
  if (value('REDIS_URL') !== undefined) problems.push('REDIS_SENTINELS: set either REDIS_URL (one Redis server) or REDIS_SENTINELS (a Sentinel group), not both');
  let sentinels: SentinelAddress[] = [];
  try {
    sentinels = parseSentinels(rawSentinels);
  } catch (error) {
    problems.push(`REDIS_SENTINELS: ${(error as Error).message}`);
  }
  if (!name) problems.push('REDIS_SENTINEL_NAME: required with REDIS_SENTINELS: the name of the master group the sentinels monitor (`sentinel monitor <name> ...`), such as mymaster');
  else if (!GROUP_NAME.test(name)) problems.push(`REDIS_SENTINEL_NAME: must be 1-128 letters, digits, ".", "-" or "_" (as Sentinel accepts), got "${name}"`);
  for (const [variable, secret] of [
    ['REDIS_SENTINEL_PASSWORD', sentinelPassword],
    ['REDIS_PASSWORD', password],
  ] as const) {
    if (secret !== undefined && /[\r\n]/.test(secret)) problems.push(`${variable}: must be one line`);
  }
  if (problems.length > before) return undefined;
  return { sentinels, name: name!, sentinelPassword, password };
}

/** `host:port,host:port,...`; a port may be left out (26379); IPv6 addresses in brackets, as `[::1]:26379`. */
export function parseSentinels(raw: string): SentinelAddress[] {
  const entries = raw
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  if (entries.length === 0) throw new Error('must list at least one sentinel as host:port, such as "10.0.0.1:26379,10.0.0.2:26379,10.0.0.3:26379"');
  const seen = new Set<string>();
  const sentinels: SentinelAddress[] = [];
  for (const entry of entries) {
    const match = /^(?:\[([0-9A-Fa-f:.]+)\]|([^\s:[\]/@]+))(?::(\d{1,5}))?$/.exec(entry);
    if (!match) throw new Error(`"${entry}" is not host:port (IPv6 in brackets: [::1]:26379)`);
    const host = match[1] ?? match[2]!;
    const port = match[3] === undefined ? SENTINEL_DEFAULT_PORT : Number(match[3]);
    if (port < 1 || port > 65_535) throw new Error(`"${entry}": the port must be 1-65535`);
    const key = `${host.toLowerCase()}:${port}`;
    if (seen.has(key)) throw new Error(`"${entry}" is listed twice`);
    seen.add(key);
    sentinels.push({ host, port });
  }
  return sentinels;
}

/** The sentinels as a log may show them (no password anywhere). */
export function describeRedisTarget(target: RedisTarget): Record<string, unknown> {
  if ('url' in target) return {};
  return { sentinels: target.sentinel.sentinels.map(({ host, port }) => (host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`)), master: target.sentinel.name };
}
