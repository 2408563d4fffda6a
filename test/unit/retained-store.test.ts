// broker/retained-store.ts: the retained messages a SUBSCRIBE gets, topics included, are those a
// scan of every retained message against the filters finds, though the tree keeps no topic; and
// the QoS they are sent at is found through the same matching (broker/retained-qos.ts).
import { expect } from 'chai';
import { RetainedMessages } from '../../broker/retained-store.ts';
import { matches as grantMatches } from '../../broker/retained-qos.ts';

const DEVICE = 'sms-gateway/v1/devices/0f3c2b1a-9d8e-4f70-a1b2-c3d4e5f60718';
const TOPICS = [`${DEVICE}/presence`, `${DEVICE}/heartbeat`, `${DEVICE}/settings`, 'sms-gateway/v1/devices/short/presence', 'a', 'a/b', 'a//c', '$SYS/x', 'a/b/c/d'];
const FILTERS = [`${DEVICE}/presence`, `${DEVICE}/+`, `${DEVICE}/#`, 'sms-gateway/v1/devices/+/presence', 'sms-gateway/#', '#', '+', '+/b', 'a/+/c', 'a/#', '$SYS/#', 'a/b', 'nothing/here'];

/** MQTT's matching, topic by topic, as the broker's live routing does it ("+" never an empty level). */
function matches(filter: string, topic: string): boolean {
  const f = filter.split('/');
  const t = topic.split('/');
  if (topic.startsWith('$') && (f[0] === '+' || f[0] === '#')) return false;
  for (let i = 0; i < f.length; i++) {
    if (f[i] === '#') return true;
    if (i >= t.length) return false;
    if (f[i] === '+' ? t[i] === '' : f[i] !== t[i]) return false;
  }
  return f.length === t.length;
}

describe('unit: retained messages kept in a tree of topic levels', () => {
  it('when filters are matched, then each message comes once with its own topic, payload and QoS', () => {
    const retained = new RetainedMessages();
    TOPICS.forEach((topic, i) => retained.store({ topic, payload: Buffer.from(`payload ${i} é`), qos: (i % 2) as 0 | 1 }));
    expect(retained.size).to.equal(TOPICS.length);
    for (const filters of [...FILTERS.map((filter) => [filter]), [`${DEVICE}/+`, 'sms-gateway/v1/devices/+/presence'], ['#', 'a/#']]) {
      const got = [...retained.match(filters)].map((packet) => `${packet.topic} ${packet.payload.toString()} ${packet.qos}`).sort();
      const expected = TOPICS.map((topic, i) => ({ topic, i }))
        .filter(({ topic }) => filters.some((filter) => matches(filter, topic)))
        .map(({ topic, i }) => `${topic} payload ${i} é ${i % 2}`)
        .sort();
      expect(got, filters.join(' ')).to.deep.equal(expected);
    }
  });

  it('when a message is replaced and another removed, then the tree answers the new one and forgets the removed', () => {
    const retained = new RetainedMessages();
    retained.store({ topic: `${DEVICE}/presence`, payload: Buffer.from('online'), qos: 1 });
    retained.store({ topic: `${DEVICE}/heartbeat`, payload: Buffer.from('{}'), qos: 1 });
    retained.store({ topic: `${DEVICE}/presence`, payload: 'offline', qos: 0 });
    retained.store({ topic: `${DEVICE}/heartbeat`, payload: Buffer.alloc(0), qos: 1 });
    expect([...retained.match([`${DEVICE}/#`])].map((packet) => [packet.topic, packet.payload.toString(), packet.qos])).to.deep.equal([[`${DEVICE}/presence`, 'offline', 0]]);
    retained.store({ topic: `${DEVICE}/presence`, payload: '', qos: 1 });
    expect(retained.size).to.equal(0);
    expect([...retained.match(['#'])]).to.deep.equal([]);
  });

  it('when messages are stored and removed at random, levels within levels, then every filter gets what a scan finds', () => {
    let state = 11;
    const next = () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648;
    const pick = <T>(items: readonly T[]) => items[Math.floor(next() * items.length)]!;
    const topics = ['a', 'a/b', 'a/b/c', 'a/b/c/d', 'a/x', `${DEVICE}/presence`, `${DEVICE}/heartbeat`, 'sms-gateway/v1/devices', '$SYS/a', 'a//c'];
    const filters = ['#', 'a/#', 'a/+', 'a/b/#', '+/b/+', 'a', 'a/b', 'a/+/c', `${DEVICE}/+`, 'sms-gateway/+/devices', '+'];
    const retained = new RetainedMessages();
    const reference = new Map<string, string>();
    for (let step = 0; step < 3_000; step++) {
      const topic = pick(topics);
      if (next() < 0.4) {
        retained.store({ topic, payload: Buffer.alloc(0), qos: 1 });
        reference.delete(topic);
      } else {
        const value = `${step}`;
        retained.store({ topic, payload: Buffer.from(value), qos: step % 3 });
        reference.set(topic, `${value} ${step % 3}`);
      }
      expect(retained.size).to.equal(reference.size);
      const chosen = [pick(filters), pick(filters)];
      const got = [...retained.match(chosen)].map((packet) => `${packet.topic} ${packet.payload.toString()} ${packet.qos}`).sort();
      const expected = [...reference].filter(([t]) => chosen.some((filter) => matches(filter, t))).map(([t, value]) => `${t} ${value}`).sort();
      expect(got, `step ${step}: ${chosen.join(' ')}`).to.deep.equal(expected);
    }
  });

  it('finds the subscription a retained message came through as MQTT matches them (for the QoS it is sent at)', () => {
    for (const filter of FILTERS) {
      for (const topic of TOPICS) expect(grantMatches(filter, topic), `${filter} against ${topic}`).to.equal(matches(filter, topic));
    }
  });
});
