// A retained message sent on at SUBSCRIBE goes out at the lower of its own QoS and the QoS granted
// to the subscription it matched, as MQTT 3.1.1 has every delivery. Aedes sends it at its own QoS
// unless a subscription of exactly its topic says lower, so a retained QoS 1 presence reaching a
// QoS 0 wildcard subscription ("…/devices/+/presence") went out at QoS 1, to be acknowledged by a
// client that asked for none. Aedes announces a SUBSCRIBE's grants ('subscribe') and, in the same
// turn, asks the persistence for the retained messages of those filters: the grants are taken from
// that announcement, and a stream asked for without one is left as it is.
import { Transform, type Readable } from 'node:stream';
import type { Aedes, Subscription } from 'aedes';
import type { RetainedPacket } from './retained-store.ts';

interface RetainedStreams {
  createRetainedStreamCombi(filters: string[]): Readable;
}

/** MQTT's SUBACK code for a refused filter. */
const REFUSED = 128;

/** Call after the retained store is installed (indexRetainedMessages or shareRetainedMessages). */
export function capRetainedQoS(aedes: Aedes): void {
  const persistence = (aedes as unknown as { persistence: RetainedStreams }).persistence;
  const streamOf = persistence.createRetainedStreamCombi.bind(persistence);
  let granted: Subscription[] | undefined;
  aedes.on('subscribe', (subscriptions) => {
    granted = subscriptions;
  });
  persistence.createRetainedStreamCombi = (filters) => {
    // Aedes' declarations type a grant's QoS 0-2; a refused filter carries 128 there.
    const grants = granted?.filter((subscription) => (subscription.qos as number) !== REFUSED);
    granted = undefined;
    const stream = streamOf(filters);
    // Aedes itself lowers what reaches a subscription of exactly the message's topic.
    if (!grants || !grants.some((grant) => /[+#]/.test(grant.topic))) return stream;
    return stream.pipe(
      new Transform({
        objectMode: true,
        transform(packet: RetainedPacket, _encoding, done) {
          const allowed = highestGrant(grants, packet.topic);
          done(null, allowed !== undefined && allowed < packet.qos ? { ...packet, qos: allowed as RetainedPacket['qos'] } : packet);
        },
      }),
    );
  };
}

/** The highest QoS among the grants whose filter matches the topic; undefined when none does. */
function highestGrant(grants: readonly Subscription[], topic: string): number | undefined {
  let highest: number | undefined;
  for (const grant of grants) {
    if (matches(grant.topic, topic) && (highest === undefined || grant.qos > highest)) highest = grant.qos;
  }
  return highest;
}

/**
 * Whether an MQTT topic filter matches a topic name: "+" one level ("+" takes no empty level, as
 * the broker's live routing has it), "#" this level and all below, and no wildcard first level
 * reaches a topic starting with "$".
 */
export function matches(filter: string, topic: string): boolean {
  const filterLevels = filter.split('/');
  const topicLevels = topic.split('/');
  if (topic.startsWith('$') && (filterLevels[0] === '+' || filterLevels[0] === '#')) return false;
  for (let i = 0; i < filterLevels.length; i++) {
    const level = filterLevels[i];
    if (level === '#') return true;
    if (i >= topicLevels.length) return false;
    if (level === '+' ? topicLevels[i] === '' : level !== topicLevels[i]) return false;
  }
  return filterLevels.length === topicLevels.length;
}
