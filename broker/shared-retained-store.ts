// Retained messages kept in Redis, for several nodes: the retained presence, heartbeat and settings
// of a phone connected to node B are what an operator subscribing on node A receives.
//
// Why not aedes-persistence-redis whole: it would also move every session's subscriptions and
// QoS 1 in-flight state into Redis, so that every task sent to a phone costs Redis writes and a
// phone cannot be served while Redis is down. A session is of no use on another node anyway: a
// phone that moves gets a fresh session there, and its unfinished tasks are re-sent from
// PostgreSQL. So sessions stay in each node's memory; only retained messages are shared.
//
// The cost per SUBSCRIBE stays independent of the fleet's size (the reason the single node
// indexes its retained messages, see retained-store.ts): an exact filter, which is all a phone
// subscribes with, is one HMGET for all of a SUBSCRIBE's filters. A filter with wildcards (an
// operator's, rare) scans the entries under its fixed leading levels.
//
// While Redis is down a retained publish is delivered live but not stored (counted), and a
// SUBSCRIBE gets no retained messages: phones do not depend on them (the gateway sends settings
// itself when a phone subscribes), operators get the current state again with the next change.
import { Readable } from 'node:stream';
import type { Aedes } from 'aedes';
import type { Redis } from 'ioredis';
import type { Metrics } from '../src/common/metrics.ts';
import { RetainedMessages, type RetainedPacket } from './retained-store.ts';

/** Entries fetched per HSCAN round trip for a wildcard filter. */
const SCAN_COUNT = 1000;

interface RetainedPersistence {
  storeRetained(packet: RetainedPacket, cb?: (error: Error | null) => void): Promise<void> | void;
  createRetainedStream(filter: string): Readable;
  createRetainedStreamCombi(filters: string[]): Readable;
}

/** Serves the broker's retained messages from the Redis hash `key`. Call right after Aedes.createBroker. */
export function shareRetainedMessages(aedes: Aedes, redis: Redis, key: string, metrics: Metrics): void {
  const persistence = (aedes as unknown as { persistence?: RetainedPersistence }).persistence;
  if (typeof persistence?.createRetainedStreamCombi !== 'function' || typeof persistence.storeRetained !== 'function') {
    throw new Error('the broker has no persistence with retained-message streams to replace');
  }
  const failed = (operation: 'store' | 'read') =>
    metrics.count('cluster_retained_failures_total', 'Retained messages not stored in, or not read from, Redis (Redis unavailable)', { operation });
  persistence.storeRetained = async (packet, cb) => {
    const payload = typeof packet.payload === 'string' ? Buffer.from(packet.payload) : packet.payload;
    try {
      // An empty payload removes the topic's retained message [MQTT-3.3.1-10].
      if (payload.length === 0) await redis.hdel(key, packet.topic);
      else await redis.hset(key, packet.topic, encode(packet.qos, payload));
    } catch {
      failed('store');
    }
    cb?.(null);
  };
  const stream = (filters: string[]) =>
    Readable.from(
      (async function* () {
        try {
          yield* await retainedMatching(redis, key, filters);
        } catch {
          failed('read');
        }
      })(),
    );
  persistence.createRetainedStream = (filter) => stream([filter]);
  persistence.createRetainedStreamCombi = (filters) => stream(filters);
}

async function retainedMatching(redis: Redis, key: string, filters: readonly string[]): Promise<RetainedPacket[]> {
  const wildcard = filters.filter((filter) => /[+#]/.test(filter));
  // "a/#" matches "a" itself [MQTT-4.7.1-2], which the scan of "a/*" does not reach.
  const parents = wildcard.filter((filter) => /^[^+#]+\/#$/.test(filter)).map((filter) => filter.slice(0, -2));
  const exact = [...new Set([...filters.filter((filter) => !/[+#]/.test(filter)), ...parents])];
  const found = new RetainedMessages();
  if (exact.length > 0) {
    const values = await redis.hmgetBuffer(key, ...exact);
    exact.forEach((topic, i) => {
      const value = values[i];
      if (value) found.store({ topic, ...decode(value) });
    });
  }
  for (const pattern of new Set(wildcard.map(scanPattern))) {
    let cursor = '0';
    do {
      const [next, entries] = await redis.hscanBuffer(key, cursor, 'MATCH', pattern, 'COUNT', SCAN_COUNT);
      cursor = next.toString();
      for (let i = 0; i + 1 < entries.length; i += 2) found.store({ topic: entries[i]!.toString(), ...decode(entries[i + 1]!) });
    } while (cursor !== '0');
  }
  // The tree applies MQTT's matching rules (wildcards, "$" topics) and yields each message once.
  return [...found.match(filters)];
}

/** An HSCAN pattern covering every topic the filter can match: its levels before the first wildcard. */
function scanPattern(filter: string): string {
  const levels = filter.split('/');
  const fixed = levels.slice(0, levels.findIndex((level) => level === '+' || level === '#'));
  const prefix = fixed.length > 0 ? `${fixed.join('/')}/` : '';
  return `${prefix.replace(/[*?[\]\\]/g, '\\$&')}*`;
}

function encode(qos: number, payload: Buffer): Buffer {
  return Buffer.concat([Buffer.of(qos), payload]);
}

function decode(value: Buffer): { qos: 0 | 1 | 2; payload: Buffer } {
  const qos = value[0] === 1 || value[0] === 2 ? value[0] : 0;
  return { qos, payload: value.subarray(1) };
}
