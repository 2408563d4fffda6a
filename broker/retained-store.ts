// Retained messages kept in a tree of topic levels, so that a SUBSCRIBE finds the retained
// messages its filters match by walking the levels the filter names.
//
// aedes-persistence's in-memory store tests every retained message against every filter of
// every SUBSCRIBE (architecture pitfalls). Each device keeps three retained messages (presence,
// heartbeat, settings) and subscribes to two exact topics on every connect, so a fleet of N
// devices connecting costs N x 2 x 3N tests: quadratic, and a reconnect storm after a restart
// stalls the broker's event loop for minutes at N = 10,000. Here an exact filter costs one
// lookup per level, and a wildcard filter visits only the branches it can match.
import { Readable } from 'node:stream';
import type { Aedes } from 'aedes';

export interface RetainedPacket {
  cmd: 'publish';
  topic: string;
  payload: Buffer;
  qos: 0 | 1 | 2;
  retain: true;
}

/** A retained message as kept: the payload's bytes as a one-byte (latin1) string. */
interface Stored {
  topic: string;
  payload: string;
  qos: 0 | 1 | 2;
}

interface Level {
  children: Map<string, Level> | undefined;
  packet: Stored | undefined;
}

export class RetainedMessages {
  private readonly root: Level = { children: undefined, packet: undefined };
  private count = 0;

  get size(): number {
    return this.count;
  }

  /** Keeps the packet as the topic's retained message; an empty payload removes it [MQTT-3.3.1-10]. */
  store(packet: { topic: string; payload: Buffer | string; qos: number }): void {
    const payload = typeof packet.payload === 'string' ? Buffer.from(packet.payload) : packet.payload;
    const levels = packet.topic.split('/');
    if (payload.length === 0) {
      this.remove(levels);
      return;
    }
    let level = this.root;
    for (const name of levels) {
      level.children ??= new Map();
      let child = level.children.get(name);
      if (!child) level.children.set(name, (child = { children: undefined, packet: undefined }));
      level = child;
    }
    if (!level.packet) this.count++;
    // Only what a SUBSCRIBE sends on. The payload's bytes are copied into a latin1 string (one
    // byte per byte, no loss): a Buffer would keep alive the whole 8 KB pool slab or socket read
    // it is a slice of, which measured at about 4 KB per device across a fleet.
    level.packet = { topic: packet.topic, payload: payload.toString('latin1'), qos: packet.qos as 0 | 1 | 2 };
  }

  /** The retained messages matching any of the filters, each once. */
  *match(filters: readonly string[]): Generator<RetainedPacket> {
    const seen = filters.length > 1 ? new Set<Stored>() : undefined;
    for (const filter of filters) {
      for (const stored of this.matchLevels(this.root, filter.split('/'), 0)) {
        if (seen?.has(stored)) continue;
        seen?.add(stored);
        yield { cmd: 'publish', topic: stored.topic, payload: Buffer.from(stored.payload, 'latin1'), qos: stored.qos, retain: true };
      }
    }
  }

  private *matchLevels(level: Level, filter: string[], depth: number): Generator<Stored> {
    if (depth === filter.length) {
      if (level.packet) yield level.packet;
      return;
    }
    const name = filter[depth]!;
    if (name === '#') {
      // "a/#" matches "a" itself and everything below it [MQTT-4.7.1-2].
      if (level.packet) yield level.packet;
      yield* this.everythingBelow(level, depth === 0);
      return;
    }
    if (!level.children) return;
    if (name === '+') {
      for (const [childName, child] of level.children) {
        // Wildcards at the first level do not match topics beginning with "$" [MQTT-4.7.2-1].
        if (depth === 0 && childName.startsWith('$')) continue;
        // As the broker's live routing (qlobber) does: "+" never matches an empty level.
        if (childName === '') continue;
        yield* this.matchLevels(child, filter, depth + 1);
      }
      return;
    }
    const child = level.children.get(name);
    if (child) yield* this.matchLevels(child, filter, depth + 1);
  }

  private *everythingBelow(level: Level, atRoot: boolean): Generator<Stored> {
    if (!level.children) return;
    for (const [childName, child] of level.children) {
      if (atRoot && childName.startsWith('$')) continue;
      if (child.packet) yield child.packet;
      yield* this.everythingBelow(child, false);
    }
  }

  private remove(levels: string[]): void {
    const path: Level[] = [this.root];
    for (const name of levels) {
      const next = path[path.length - 1]!.children?.get(name);
      if (!next) return;
      path.push(next);
    }
    const leaf = path[path.length - 1]!;
    if (!leaf.packet) return;
    leaf.packet = undefined;
    this.count--;
    // Prune the levels left empty, so a departed device leaves nothing behind.
    for (let i = path.length - 1; i > 0; i--) {
      const level = path[i]!;
      if (level.packet || level.children?.size) break;
      path[i - 1]!.children!.delete(levels[i - 1]!);
    }
  }
}

/** The part of Aedes' persistence interface that serves retained messages. */
interface RetainedPersistence {
  storeRetained(packet: RetainedPacket, cb?: (error: Error | null) => void): Promise<void> | void;
  createRetainedStream(filter: string): Readable;
  createRetainedStreamCombi(filters: string[]): Readable;
}

/**
 * Serves the broker's retained messages from a RetainedMessages tree instead of its persistence's
 * scan. Call right after Aedes.createBroker, before any connection is handled; everything else
 * (sessions, subscriptions, wills, QoS state) stays with the broker's persistence.
 */
export function indexRetainedMessages(aedes: Aedes): RetainedMessages {
  // Aedes 1.x keeps its persistence on `broker.persistence` (not in its type declarations).
  const persistence = (aedes as unknown as { persistence?: RetainedPersistence }).persistence;
  if (typeof persistence?.createRetainedStreamCombi !== 'function' || typeof persistence.storeRetained !== 'function') {
    throw new Error('the broker has no persistence with retained-message streams to replace');
  }
  const retained = new RetainedMessages();
  persistence.storeRetained = (packet, cb) => {
    retained.store(packet);
    if (cb) return void process.nextTick(cb, null);
    return Promise.resolve();
  };
  persistence.createRetainedStream = (filter) => Readable.from(retained.match([filter]));
  persistence.createRetainedStreamCombi = (filters) => Readable.from(retained.match(filters));
  return retained;
}
