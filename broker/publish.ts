// PUBLISH from a client: whether it may (acl.ts), on which topic it is routed, and, for a device's
// own messages, handing them to DeviceMessages in Aedes' `published` hook, so that a QoS 2 report
// is acknowledged only once it is committed.
import type { Aedes, Client, PublishPacket } from 'aedes';
import type { Logger } from '../src/common/logger.ts';
import type { Metrics } from '../src/common/metrics.ts';
import { decidePublish, QUARANTINE_PREFIX } from './acl.ts';
import { identityOf } from './identity.ts';
import { canonicalTopic, isDeviceToGateway, parseDeviceTopic } from './topics.ts';
import type { DeviceMessages } from './device-messages.ts';
import type { DeviceSessions } from './sessions.ts';
import type { BrokerCluster } from './ports.ts';

export function installPublish(
  aedes: Aedes,
  sessions: DeviceSessions,
  messages: DeviceMessages,
  cluster: BrokerCluster | undefined,
  metrics: Metrics,
  logger: Logger,
): void {
  aedes.authorizePublish = (client, packet, done) => {
    const identity = identityOf(client);
    const decision = decidePublish(identity, packet);
    if ('quarantine' in decision) {
      // Kept off every subscriber and out of the retained store; published() logs it.
      packet.topic = `${QUARANTINE_PREFIX}${identity?.kind === 'device' ? identity.deviceId : 'unknown'}/${decision.quarantine}`;
      packet.retain = false;
      return done(null);
    }
    if ('reason' in decision) {
      const deviceId = identity?.kind === 'device' ? identity.deviceId : undefined;
      metrics.count('mqtt_publish_refused_total', 'MQTT publishes refused (the connection is closed)', { reason: decision.reason });
      logger.warn({ clientId: client?.id, deviceId, reason: decision.reason }, 'mqtt publish refused');
      return done(new Error(decision.reason));
    }
    if (identity?.kind === 'device') {
      // Routed, retained and consumed on the canonical topic, whatever case the device wrote its id in.
      packet.topic = canonicalTopic(packet.topic);
      // A last will of a connection that a takeover replaced (or is replacing) is stale: drop it.
      const staleWill = () => {
        packet.topic = `${QUARANTINE_PREFIX}${identity.deviceId}/stale_will`;
        packet.retain = false;
      };
      if (packet.topic.endsWith('/presence')) {
        if (!sessions.isCurrent(identity.deviceId, client)) staleWill();
        else if (cluster && isOffline(packet.payload)) {
          // Another node may have taken the device over: Aedes closes this connection then,
          // and its will must not overwrite the presence the new node holds.
          const claim = sessions.claims.get(client!);
          if (claim) {
            return void cluster.ownership.stillHolds(identity.deviceId, identity.accountId, claim.token).then((holds) => {
              if (!holds) staleWill();
              done(null);
            });
          }
        }
      }
    }
    done(null);
  };

  aedes.published = (packet, client, done) => {
    consume(messages, packet, client).then(
      () => done(),
      // Not acknowledged: the device sends the report again.
      (error: unknown) => {
        logger.error({ err: error, topic: packet.topic }, 'device message failed');
        done(error as Error);
      },
    );
  };
}

async function consume(messages: DeviceMessages, packet: PublishPacket, client: Client | null): Promise<void> {
  const identity = identityOf(client);
  if (identity?.kind !== 'device') return;
  if (packet.topic.startsWith(QUARANTINE_PREFIX)) {
    const reason = packet.topic.split('/').pop() ?? 'unknown';
    if (reason !== 'stale_will') messages.rejected(identity.deviceId, reason);
    return;
  }
  const topic = parseDeviceTopic(packet.topic);
  if (!topic || !isDeviceToGateway(topic.kind)) return;
  const payload = Buffer.isBuffer(packet.payload) ? packet.payload : Buffer.from(packet.payload);
  await messages.handle(identity, topic.kind, payload);
}

function isOffline(payload: Buffer | string): boolean {
  return (typeof payload === 'string' ? payload : payload.toString('utf8')).trim() === 'offline';
}
