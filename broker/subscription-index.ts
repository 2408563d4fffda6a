// Subscriptions kept by exact topic, with a topic tree only for the filters that hold wildcards.
//
// Every device subscribes to a handful of exact topics of its own (devices/<id>/tasks, settings,
// revoke, ussd), and Aedes records each subscription twice: in its message emitter (mqemitter,
// whose listeners sit in a qlobber tree) and in its persistence (aedes-persistence, in another
// qlobber tree, QlobberSub, plus a map per client). A qlobber tree spends a Map per topic level
// and per leaf, and QlobberSub one more Map and a generator closure per topic: about 16 Maps and
// 4 KB of heap per connected device, most of what a device's subscriptions cost. Exact topics
// need no tree: here they sit in one Map keyed by the whole topic, and the trees keep only the
// wildcard filters (operators', and any device's own "+" or "#"). What matches a topic is what
// the trees answered before: the exact topic's entries, then the wildcard filters'.
import { Readable } from 'node:stream';
import { Qlobber } from 'qlobber';
import QlobberSub from 'qlobber/aedes/qlobber-sub.js';
import type { Aedes } from 'aedes';
import { deleteEntry, entriesOf, entryCount, getEntry, hasEntry, setEntry, type FewEntries } from './few-entries.ts';

const TREE_OPTIONS = { separator: '/', wildcard_one: '+', wildcard_some: '#' };

function hasWildcard(filter: string): boolean {
  return filter.includes('+') || filter.includes('#');
}

type Listener = (...args: never[]) => unknown;

/** Two listeners or more on one exact topic; one is kept bare, without an array. */
class Listeners extends Array<Listener> {}

/**
 * The listener store of an mqemitter (its `_matcher`): the same add, remove and match as the
 * qlobber it replaces (mqemitter matches empty levels; only wildcard filters are affected).
 */
export class ListenerIndex {
  private readonly exact = new Map<string, Listener | Listeners>();

  /**
   * `tree` is the emitter's own qlobber, kept for the wildcard filters: it holds the listeners
   * Aedes added while it was made (its `$SYS` ones, such as the takeover of a client that
   * connected to another node), exact or not, and they are matched from it as before.
   */
  constructor(private readonly tree: Qlobber = new Qlobber({ ...TREE_OPTIONS, match_empty_levels: true })) {}

  add(topic: string, listener: Listener): void {
    if (hasWildcard(topic)) return void this.tree.add(topic, listener);
    const present = this.exact.get(topic);
    if (present === undefined) this.exact.set(topic, listener);
    else if (present instanceof Listeners) present.push(listener);
    else this.exact.set(topic, Listeners.of(present, listener));
  }

  /** Removes the listener added last with this function; every listener of the topic without one. */
  remove(topic: string, listener?: Listener): void {
    if (hasWildcard(topic)) return void this.tree.remove(topic, listener);
    const present = this.exact.get(topic);
    if (listener === undefined) {
      this.exact.delete(topic);
      this.tree.remove(topic);
      return;
    }
    // Not here: added to the tree before this index took over.
    if (present === undefined || (present !== listener && !(present instanceof Listeners && present.includes(listener)))) {
      return void this.tree.remove(topic, listener);
    }
    if (present instanceof Listeners) {
      const index = present.lastIndexOf(listener);
      if (index >= 0) present.splice(index, 1);
      if (present.length === 1) this.exact.set(topic, present[0]!);
      else if (present.length === 0) this.exact.delete(topic);
    } else if (present === listener) {
      this.exact.delete(topic);
    }
  }

  /**
   * A new array: the emitter calls the listeners later, while some may be removed. (What the tree
   * answers may be its own array of values: it is copied, never changed.)
   */
  match(topic: string): Listener[] {
    const present = this.exact.get(topic);
    const matched = this.tree.match(topic) as Listener[];
    if (present === undefined) return matched;
    if (present instanceof Listeners) return matched.length === 0 ? Array.from(present) : [...present, ...matched];
    return matched.length === 0 ? [present] : [present, ...matched];
  }
}

/** One client's subscription as aedes-persistence returns it for a topic. */
interface TopicSubscription {
  clientId: string;
  topic: string;
  qos: number;
  rh?: number;
  rap?: boolean;
  nl?: boolean;
}

/** A subscription as stored for its client: only its QoS when it has nothing else (MQTT 3.1.1). */
type Stored = number | { qos: number; rh?: number; rap?: boolean; nl?: boolean; subscriptionIdentifier?: number };

interface Subscription {
  topic: string;
  qos: number;
  rh?: number;
  rap?: boolean;
  nl?: boolean;
  subscriptionIdentifier?: number;
}

function stored(sub: Subscription): Stored {
  if (sub.rh === undefined && sub.rap === undefined && sub.nl === undefined && sub.subscriptionIdentifier === undefined) return sub.qos;
  const record: Exclude<Stored, number> = { qos: sub.qos, rh: sub.rh, rap: sub.rap, nl: sub.nl };
  if (sub.subscriptionIdentifier !== undefined) record.subscriptionIdentifier = sub.subscriptionIdentifier;
  return record;
}

function qosOf(value: Stored): number {
  return typeof value === 'number' ? value : value.qos;
}

/** The subscriber of an exact topic with QoS > 0, or several by client id. */
type TopicEntry = string | { clientId: string; sub: Stored } | Map<string, Stored>;

/**
 * The entry of one subscriber: its client id alone when it subscribed with QoS 1 and nothing
 * else, as every device does to each of its own topics (no object per subscription, about 150
 * bytes a device); an object otherwise.
 */
function single(clientId: string, sub: Stored): TopicEntry {
  return sub === 1 ? clientId : { clientId, sub };
}

function singleClient(entry: string | { clientId: string }): string {
  return typeof entry === 'string' ? entry : entry.clientId;
}

function singleSub(entry: string | { sub: Stored }): Stored {
  return typeof entry === 'string' ? 1 : entry.sub;
}

/**
 * The subscription half of aedes-persistence's in-memory store, with the same answers: each
 * client's subscriptions (restored on a reconnect with a stored session), and the clients
 * subscribed with QoS > 0 to what a topic matches (for messages queued for stored sessions).
 */
export class SubscriptionStore {
  /**
   * Each client's subscriptions by filter. A device has four, for as long as it stays connected:
   * kept as few entries (few-entries.ts), not a Map each (about 120 bytes less a device).
   */
  private readonly byClient = new Map<string, FewEntries<Stored>>();
  private readonly exact = new Map<string, TopicEntry>();
  private readonly wildcards = new QlobberSub(TREE_OPTIONS);
  /** Exact subscriptions with QoS > 0 (QlobberSub counts the wildcard ones). */
  private exactCount = 0;

  add(clientId: string, subs: readonly Subscription[]): void {
    let own = this.byClient.get(clientId) ?? [];
    for (const sub of subs) {
      const before = getEntry(own, sub.topic);
      const value = stored(sub);
      if (sub.qos > 0) this.index(clientId, sub, value);
      else if (before !== undefined && qosOf(before) > 0) this.unindex(clientId, sub.topic);
      own = setEntry(own, sub.topic, value);
    }
    this.byClient.set(clientId, own);
  }

  remove(clientId: string, topics: readonly string[]): void {
    const own = this.byClient.get(clientId);
    if (!own) return;
    for (const topic of topics) {
      const before = getEntry(own, topic);
      if (before === undefined) continue;
      if (qosOf(before) > 0) this.unindex(clientId, topic);
      deleteEntry(own, topic);
    }
    if (entryCount(own) === 0) this.byClient.delete(clientId);
  }

  /** Forgets every subscription of the client (a clean session). */
  clean(clientId: string): void {
    const own = this.byClient.get(clientId);
    if (!own) return;
    for (const [topic, value] of entriesOf(own)) if (qosOf(value) > 0) this.unindex(clientId, topic);
    this.byClient.delete(clientId);
  }

  ofClient(clientId: string): Subscription[] {
    const own = this.byClient.get(clientId);
    if (!own) return [];
    return Array.from(entriesOf(own), ([topic, value]) => (typeof value === 'number' ? { topic, qos: value, rh: undefined, rap: undefined, nl: undefined } : { topic, ...value }));
  }

  /** Subscriptions with QoS > 0 whose filter matches the topic, one per client and filter. */
  matching(topic: string): TopicSubscription[] {
    const matched = this.wildcards.match(topic) as TopicSubscription[];
    const entry = this.exact.get(topic);
    if (entry === undefined) return matched;
    const found: TopicSubscription[] = [];
    // The tree's answer is concatenated into a new array, never changed in place (see ListenerIndex.match).
    const push = (clientId: string, value: Stored) => {
      if (typeof value === 'number') found.push({ clientId, topic, qos: value, rh: undefined, rap: undefined, nl: undefined });
      else found.push({ clientId, topic, qos: value.qos, rh: value.rh, rap: value.rap, nl: value.nl });
    };
    if (entry instanceof Map) for (const [clientId, value] of entry) push(clientId, value);
    else push(singleClient(entry), singleSub(entry));
    return found.concat(matched);
  }

  /** Clients with a subscription to exactly this filter. */
  *clientsOf(topic: string): Generator<string> {
    for (const [clientId, own] of this.byClient) if (hasEntry(own, topic)) yield clientId;
  }

  get counts(): { subsCount: number; clientsCount: number } {
    return { subsCount: this.exactCount + this.wildcards.subscriptionsCount, clientsCount: this.byClient.size };
  }

  private index(clientId: string, sub: Subscription, value: Stored): void {
    if (hasWildcard(sub.topic)) {
      this.wildcards.add(sub.topic, { clientId, topic: sub.topic, qos: sub.qos, rh: sub.rh, rap: sub.rap, nl: sub.nl });
      return;
    }
    const entry = this.exact.get(sub.topic);
    if (entry === undefined) {
      this.exact.set(sub.topic, single(clientId, value));
      this.exactCount++;
    } else if (entry instanceof Map) {
      if (!entry.has(clientId)) this.exactCount++;
      entry.set(clientId, value);
    } else if (singleClient(entry) === clientId) {
      this.exact.set(sub.topic, single(clientId, value));
    } else {
      this.exact.set(sub.topic, new Map([[singleClient(entry), singleSub(entry)], [clientId, value]]));
      this.exactCount++;
    }
  }

  private unindex(clientId: string, topic: string): void {
    if (hasWildcard(topic)) return void this.wildcards.remove(topic, { clientId, topic });
    const entry = this.exact.get(topic);
    if (entry === undefined) return;
    if (entry instanceof Map) {
      if (!entry.delete(clientId)) return;
      this.exactCount--;
      if (entry.size === 1) {
        const [onlyClient, sub] = entry.entries().next().value!;
        this.exact.set(topic, single(onlyClient, sub));
      }
    } else if (singleClient(entry) === clientId) {
      this.exact.delete(topic);
      this.exactCount--;
    }
  }
}

/** The part of Aedes' persistence interface that keeps subscriptions (callback or promise). */
interface SubscriptionPersistence {
  addSubscriptions(client: { id: string }, subs: Subscription[], cb?: (error: Error | null, client?: unknown) => void): Promise<void> | void;
  removeSubscriptions(client: { id: string }, topics: string[], cb?: (error: Error | null, client?: unknown) => void): Promise<void> | void;
  subscriptionsByClient(client: { id: string }, cb?: (error: Error | null, subs: Subscription[] | null, client?: unknown) => void): Promise<Subscription[]> | void;
  subscriptionsByTopic(topic: string, cb?: (error: Error | null, subs: TopicSubscription[]) => void): Promise<TopicSubscription[]> | void;
  cleanSubscriptions(client: { id: string }, cb?: (error: Error | null, client?: unknown) => void): Promise<unknown> | void;
  countOffline(cb?: (error: Error | null, subsCount: number, clientsCount: number) => void): Promise<{ subsCount: number; clientsCount: number }> | void;
  getClientList(topic: string): Readable;
}

/**
 * Keeps the broker's subscriptions in a SubscriptionStore instead of its persistence's trees, and
 * the listeners of its message emitter in a ListenerIndex. Call right after Aedes.createBroker,
 * before any connection is handled (as indexRetainedMessages); sessions' other state (wills,
 * QoS 1/2 packets) stays with the persistence.
 */
export function indexSubscriptions(aedes: Aedes): SubscriptionStore {
  // Aedes 1.x keeps these on `broker.persistence` and `broker.mq` (not in its type declarations).
  const { persistence, mq } = aedes as unknown as { persistence?: SubscriptionPersistence; mq?: { _matcher?: unknown } };
  if (typeof persistence?.subscriptionsByTopic !== 'function' || typeof persistence.addSubscriptions !== 'function') {
    throw new Error('the broker has no persistence with subscriptions to replace');
  }
  if (!mq || typeof (mq._matcher as { match?: unknown } | undefined)?.match !== 'function') throw new Error('the broker has no message emitter whose listeners to index');
  mq._matcher = new ListenerIndex(mq._matcher as Qlobber);
  const store = new SubscriptionStore();
  // Callback style as aedes-persistence's CallBackPersistence answers (on a later tick), or a promise.
  const answer = <T>(value: T, cb: ((error: null, value: T) => void) | undefined): Promise<T> | void => {
    if (!cb) return Promise.resolve(value);
    process.nextTick(cb, null, value);
  };
  persistence.addSubscriptions = (client, subs, cb) => {
    store.add(client.id, subs);
    return answer(client, cb) as Promise<void> | void;
  };
  persistence.removeSubscriptions = (client, topics, cb) => {
    store.remove(client.id, topics);
    return answer(client, cb) as Promise<void> | void;
  };
  persistence.subscriptionsByClient = (client, cb) => {
    const subs = store.ofClient(client.id);
    if (!cb) return Promise.resolve(subs);
    process.nextTick(cb, null, subs.length > 0 ? subs : null, client);
  };
  persistence.subscriptionsByTopic = (topic, cb) => answer(store.matching(topic), cb);
  persistence.cleanSubscriptions = (client, cb) => {
    store.clean(client.id);
    return answer(client, cb);
  };
  persistence.countOffline = (cb) => {
    const { subsCount, clientsCount } = store.counts;
    if (!cb) return Promise.resolve({ subsCount, clientsCount });
    process.nextTick(cb, null, subsCount, clientsCount);
  };
  persistence.getClientList = (topic) => Readable.from(store.clientsOf(topic));
  return store;
}
