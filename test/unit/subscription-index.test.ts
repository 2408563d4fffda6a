// broker/subscription-index.ts: subscriptions kept by exact topic answer what Aedes' own stores
// (aedes-persistence's in-memory trees, mqemitter's qlobber) answered, for the same operations.
import { expect } from 'chai';
import { Qlobber } from 'qlobber';
import { createRequire } from 'node:module';
import { ListenerIndex, SubscriptionStore } from '../../broker/subscription-index.ts';

const require = createRequire(import.meta.url);
// aedes-persistence's in-memory store, the one Aedes is made with (a CommonJS class export).
const MemoryPersistence = require('aedes-persistence/asyncPersistence.js') as new () => {
  addSubscriptions(client: { id: string }, subs: object[]): Promise<void>;
  removeSubscriptions(client: { id: string }, topics: string[]): Promise<void>;
  cleanSubscriptions(client: { id: string }): Promise<void>;
  subscriptionsByClient(client: { id: string }): Promise<object[]>;
  subscriptionsByTopic(topic: string): Promise<object[]>;
  countOffline(): Promise<{ subsCount: number; clientsCount: number }>;
};

/** A small deterministic generator, so that a failure can be replayed. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
}

const CLIENTS = ['a', 'b', 'c', 'operator-1'];
const FILTERS = ['d/a/tasks', 'd/a/settings', 'd/b/tasks', 'd/+/tasks', 'd/a/#', 'd/#', '#', 'd/b/+', 'd//x', 'd/+/x'];
const TOPICS = ['d/a/tasks', 'd/a/settings', 'd/b/tasks', 'd/b/settings', 'd/c/tasks', 'd//x', 'd/a', 'e/f'];

const sorted = (items: object[]) => items.map((item) => JSON.stringify(item, Object.keys(item).sort())).sort();

describe('unit: subscriptions kept by exact topic', () => {
  it('when clients subscribe, unsubscribe and clean their sessions at random, then every answer equals aedes-persistence\'s', async () => {
    const next = random(7);
    const pick = <T>(items: readonly T[]) => items[Math.floor(next() * items.length)]!;
    const reference = new MemoryPersistence();
    const store = new SubscriptionStore();
    for (let step = 0; step < 2_000; step++) {
      const client = { id: pick(CLIENTS) };
      const roll = next();
      if (roll < 0.55) {
        const subs = [{ topic: pick(FILTERS), qos: pick([0, 1, 2]) }, { topic: pick(FILTERS), qos: pick([0, 1]) }];
        await reference.addSubscriptions(client, subs);
        store.add(client.id, subs);
      } else if (roll < 0.9) {
        const topics = [pick(FILTERS)];
        await reference.removeSubscriptions(client, topics);
        store.remove(client.id, topics);
      } else {
        await reference.cleanSubscriptions(client);
        store.clean(client.id);
      }
      for (const id of CLIENTS) expect(sorted(store.ofClient(id)), `${id} after step ${step}`).to.deep.equal(sorted(await reference.subscriptionsByClient({ id })));
      for (const topic of TOPICS) expect(sorted(store.matching(topic)), `${topic} after step ${step}`).to.deep.equal(sorted(await reference.subscriptionsByTopic(topic)));
      expect(store.counts).to.deep.equal(await reference.countOffline());
    }
  });

  it('when a subscription carries MQTT 5 options, then they come back with it', () => {
    const store = new SubscriptionStore();
    store.add('a', [{ topic: 'd/a/tasks', qos: 1, rh: 1, rap: true, nl: true, subscriptionIdentifier: 9 }]);
    expect(store.ofClient('a')).to.deep.equal([{ topic: 'd/a/tasks', qos: 1, rh: 1, rap: true, nl: true, subscriptionIdentifier: 9 }]);
    expect(store.matching('d/a/tasks')).to.deep.equal([{ clientId: 'a', topic: 'd/a/tasks', qos: 1, rh: 1, rap: true, nl: true }]);
  });
});

describe('unit: message listeners kept by exact topic', () => {
  it('when listeners are added and removed at random, also ones the emitter held before, then each topic matches the listeners mqemitter\'s qlobber matched', () => {
    const next = random(11);
    const pick = <T>(items: readonly T[]) => items[Math.floor(next() * items.length)]!;
    const listeners = [() => 1, () => 2, () => 3];
    const tree = () => new Qlobber({ separator: '/', wildcard_one: '+', wildcard_some: '#', match_empty_levels: true });
    const reference = tree();
    // What Aedes subscribed while it was made stays in the emitter's own tree.
    const before = tree();
    for (const [filter, listener] of [['d/a/tasks', listeners[0]], ['d/+/x', listeners[1]], ['d/a/tasks', listeners[2]]] as const) {
      reference.add(filter, listener);
      before.add(filter, listener);
    }
    const index = new ListenerIndex(before);
    for (let step = 0; step < 2_000; step++) {
      const filter = pick(FILTERS);
      const roll = next();
      if (roll < 0.55) {
        const listener = pick(listeners);
        reference.add(filter, listener);
        index.add(filter, listener);
      } else if (roll < 0.95) {
        const listener = pick(listeners);
        reference.remove(filter, listener);
        index.remove(filter, listener);
      } else {
        reference.remove(filter);
        index.remove(filter);
      }
      const names = (matched: unknown[]) => (matched as Array<() => number>).map((listener) => listener()).sort();
      for (const topic of TOPICS) expect(names(index.match(topic)), `${topic} after step ${step}`).to.deep.equal(names(reference.match(topic)));
    }
  });

  it('when a listener is removed while a match is being delivered, then the matched list stays as it was', () => {
    const index = new ListenerIndex();
    const first = () => 1;
    const second = () => 2;
    index.add('d/a/tasks', first);
    index.add('d/a/tasks', second);
    const matched = index.match('d/a/tasks');
    index.remove('d/a/tasks', first);
    expect(matched).to.deep.equal([first, second]);
    expect(index.match('d/a/tasks')).to.deep.equal([second]);
  });
});
