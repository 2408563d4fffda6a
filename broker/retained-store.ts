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
import { DEVICE_TO_GATEWAY, GATEWAY_TO_DEVICE, TOPIC_PREFIX } from './topics.ts';
import { deleteEntry, entriesOf, entryCount, getEntry, setEntry, type FewEntries } from './few-entries.ts';

export interface RetainedPacket {
  cmd: 'publish';
  topic: string;
  payload: Buffer;
  qos: 0 | 1 | 2;
  retain: true;
}

/**
 * A retained message as kept: one string, its first character the QoS and the rest the payload's
 * bytes one for one (latin1). Its topic is not kept: it is the path of level names that leads to
 * it, rebuilt when a SUBSCRIBE matches it (an exact filter is the topic already). Every connected
 * device keeps three (presence, heartbeat, settings), so what one costs is paid three times per
 * device: an object and a topic string each were about 140 bytes of the 300 a message took
 * besides its payload.
 */
type Message = string;

/**
 * A node of the tree: a level with levels below it (and maybe a message of its own), or, where
 * nothing lies below, the message alone.
 */
type Node = Level | Message;

interface Level {
  /** The levels below, by name: a few in an array, many in a Map (few-entries.ts). */
  children: FewEntries<Node> | undefined;
  message: Message | undefined;
}

function encode(payload: Buffer, qos: number): Message {
  // One string made at once, never a concatenation (which would keep its two parts).
  return Buffer.concat([Buffer.of(qos), payload]).toString('latin1');
}

function decode(message: Message): { payload: Buffer; qos: 0 | 1 | 2 } {
  const qos = message.charCodeAt(0);
  return { payload: Buffer.from(message.slice(1), 'latin1'), qos: qos === 1 || qos === 2 ? qos : 0 };
}

function messageOf(node: Node): Message | undefined {
  return typeof node === 'string' ? node : node.message;
}

/**
 * Level names every device's topics repeat (the tree's prefix and the kinds of message), kept
 * once: a name split from a topic would otherwise be a string of its own for every device.
 */
const COMMON_NAMES = new Map([...TOPIC_PREFIX.split('/'), ...GATEWAY_TO_DEVICE, ...DEVICE_TO_GATEWAY].map((name) => [name, name]));

/**
 * The level name to keep as a key. `split` returns a longer name (a device id) as a slice that
 * keeps the whole topic string alive; a copy of its own holds only the name.
 */
function keptName(name: string): string {
  const common = COMMON_NAMES.get(name);
  if (common !== undefined) return common;
  if (name.length < 13) return name;
  const copy = Buffer.from(name, 'utf8').toString('utf8');
  // A name that UTF-8 cannot carry as it is (a lone surrogate) stays the slice.
  return copy === name ? copy : name;
}

export class RetainedMessages {
  private readonly root: Level = { children: undefined, message: undefined };
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
    // Only what a SUBSCRIBE sends on, copied into a string: a Buffer would keep alive the whole
    // 8 KB pool slab or socket read it is a slice of, which measured at about 4 KB per device
    // across a fleet.
    const message = encode(payload, packet.qos);
    let level = this.root;
    for (let depth = 0; depth < levels.length - 1; depth++) {
      const name = levels[depth]!;
      const child = getEntry(level.children, name);
      if (child === undefined || typeof child === 'string') {
        // A level to go through: a message alone here becomes a level's own message.
        const through: Level = { children: undefined, message: child };
        level.children = setEntry(level.children, child === undefined ? keptName(name) : name, through);
        level = through;
      } else {
        level = child;
      }
    }
    const last = levels[levels.length - 1]!;
    const present = getEntry(level.children, last);
    if (present === undefined || messageOf(present) === undefined) this.count++;
    if (present !== undefined && typeof present !== 'string') present.message = message;
    else level.children = setEntry(level.children, present === undefined ? keptName(last) : last, message);
  }

  /** The retained messages matching any of the filters, each once. */
  *match(filters: readonly string[]): Generator<RetainedPacket> {
    const seen = filters.length > 1 ? new Set<string>() : undefined;
    for (const filter of filters) {
      const names = filter.split('/');
      // An exact filter is the topic of what it matches; a wildcard's matches are named by their path.
      const exact = !names.includes('+') && !names.includes('#');
      for (const [message, path] of this.matchLevels(this.root, names, 0, [])) {
        const topic = exact ? filter : path.join('/');
        if (seen?.has(topic)) continue;
        seen?.add(topic);
        yield { cmd: 'publish', topic, ...decode(message), retain: true };
      }
    }
  }

  /** The messages the filter matches below this node, each with the names that lead to it. */
  private *matchLevels(node: Node, filter: string[], depth: number, path: string[]): Generator<[Message, string[]]> {
    const message = messageOf(node);
    if (depth === filter.length) {
      if (message !== undefined) yield [message, path];
      return;
    }
    const name = filter[depth]!;
    if (name === '#') {
      // "a/#" matches "a" itself and everything below it [MQTT-4.7.1-2].
      if (message !== undefined) yield [message, path];
      yield* this.everythingBelow(node, depth === 0, path);
      return;
    }
    if (typeof node === 'string') return;
    if (name === '+') {
      for (const [childName, child] of entriesOf(node.children)) {
        // Wildcards at the first level do not match topics beginning with "$" [MQTT-4.7.2-1].
        if (depth === 0 && childName.startsWith('$')) continue;
        // As the broker's live routing (qlobber) does: "+" never matches an empty level.
        if (childName === '') continue;
        yield* this.matchLevels(child, filter, depth + 1, [...path, childName]);
      }
      return;
    }
    const child = getEntry(node.children, name);
    if (child !== undefined) yield* this.matchLevels(child, filter, depth + 1, [...path, name]);
  }

  private *everythingBelow(node: Node, atRoot: boolean, path: string[]): Generator<[Message, string[]]> {
    if (typeof node === 'string') return;
    for (const [childName, child] of entriesOf(node.children)) {
      if (atRoot && childName.startsWith('$')) continue;
      const below = [...path, childName];
      const message = messageOf(child);
      if (message !== undefined) yield [message, below];
      yield* this.everythingBelow(child, false, below);
    }
  }

  private remove(levels: string[]): void {
    const path: Level[] = [this.root];
    for (let depth = 0; depth < levels.length - 1; depth++) {
      const next = getEntry(path[path.length - 1]!.children, levels[depth]!);
      if (next === undefined || typeof next === 'string') return;
      path.push(next);
    }
    const parent = path[path.length - 1]!;
    const last = levels[levels.length - 1]!;
    const leaf = getEntry(parent.children, last);
    if (leaf === undefined || messageOf(leaf) === undefined) return;
    this.count--;
    if (typeof leaf === 'string') deleteEntry(parent.children, last);
    else if (entryCount(leaf.children) > 0) leaf.message = undefined;
    else deleteEntry(parent.children, last);
    // Prune the levels left empty, so a departed device leaves nothing behind.
    for (let i = path.length - 1; i > 0; i--) {
      const level = path[i]!;
      if (entryCount(level.children) > 0) break;
      const above = path[i - 1]!;
      // A level left with only its own message becomes that message alone.
      if (level.message !== undefined) setEntry(above.children, levels[i - 1]!, level.message);
      else deleteEntry(above.children, levels[i - 1]!);
      if (level.message !== undefined) break;
    }
    if (entryCount(this.root.children) === 0) this.root.children = undefined;
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
