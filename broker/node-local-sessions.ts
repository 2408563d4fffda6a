// With several nodes, MQTT sessions stay in each node's memory while messages come from every
// node (shared-retained-store.ts says why). Aedes expects a QoS 1 message for a persistent
// session to have been queued in the session's persistence by the node that published it; a
// message published on another node never was, and Aedes' in-memory persistence then fails the
// delivery with "no such packet", which closes the phone's connection.
//
// Such a message is delivered all the same, without a copy kept for redelivery after a
// reconnect. Nothing depends on that copy: unfinished tasks are re-sent from PostgreSQL when a
// phone subscribes, settings are sent on every subscription, and a revoked task is revoked
// again when a phone acknowledges it.
import type { Aedes } from 'aedes';

interface OutgoingPersistence {
  outgoingUpdate(client: unknown, packet: unknown, cb?: (error: Error | null, ...rest: unknown[]) => void): Promise<void> | void;
}

/** Call right after Aedes.createBroker. */
export function deliverMessagesFromOtherNodes(aedes: Aedes): void {
  const persistence = (aedes as unknown as { persistence?: OutgoingPersistence }).persistence;
  if (typeof persistence?.outgoingUpdate !== 'function') throw new Error('the broker has no persistence to adapt');
  const update = persistence.outgoingUpdate.bind(persistence);
  persistence.outgoingUpdate = (client, packet, cb) => {
    const updated = Promise.resolve(update(client, packet)).catch((error: unknown) => {
      if (!(error instanceof Error && error.message === 'no such packet')) throw error;
    });
    if (!cb) return updated;
    updated.then(
      () => cb(null, client, packet),
      (error: unknown) => cb(error as Error),
    );
  };
}
