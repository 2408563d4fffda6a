// SUBSCRIBE: what a connection may subscribe to (acl.ts), and what a device's own subscriptions
// start. Its settings are pushed whenever it subscribes to them; once it has subscribed to its
// tasks it is ready, and delivery hands it what it holds and what waits for it.
import type { Aedes } from 'aedes';
import type { Logger } from '../src/common/logger.ts';
import type { Metrics } from '../src/common/metrics.ts';
import { decideSubscribe } from './acl.ts';
import { identityOf } from './identity.ts';
import { TOPIC_PREFIX } from './topics.ts';
import type { ConnectHandler } from './connect.ts';
import type { DeviceSessions } from './sessions.ts';
import type { DeliveryPort } from './ports.ts';

export function installSubscribe(
  aedes: Aedes,
  sessions: DeviceSessions,
  connect: ConnectHandler,
  delivery: DeliveryPort,
  metrics: Metrics,
  logger: Logger,
): void {
  aedes.authorizeSubscribe = (client, subscription, done) => {
    const identity = identityOf(client);
    const refresh = identity?.kind === 'operator' ? connect.refreshOperatorDevices(identity) : Promise.resolve();
    refresh.then(
      () => {
        const granted = decideSubscribe(identity, subscription);
        if (granted) {
          // Aedes subscribes with the granted filter, but takes the retained messages and the
          // "subscribe" event from the packet's own subscription: that gets the canonical filter too.
          subscription.topic = granted.topic;
        } else {
          metrics.count('mqtt_subscribe_refused_total', 'MQTT subscriptions refused');
          logger.warn({ clientId: client.id, topic: subscription.topic }, 'mqtt subscription refused');
        }
        done(null, granted);
      },
      (error: unknown) => done(error as Error),
    );
  };

  aedes.on('subscribe', (subscriptions, client) => {
    const identity = identityOf(client);
    if (identity?.kind !== 'device') return;
    const topics = new Set(subscriptions.map((subscription) => subscription.topic));
    const base = `${TOPIC_PREFIX}${identity.deviceId}/`;
    const own = (kind: 'tasks' | 'settings') => topics.has(base + kind) || topics.has(`${base}#`) || topics.has(`${base}+`);
    if (own('settings')) void sessions.sendSettings(identity.device).catch((error: unknown) => logger.error({ err: error }, 'settings push failed'));
    if (own('tasks') && sessions.connections.get(identity.deviceId) === client) {
      sessions.markReady(identity.deviceId);
      delivery.deviceReady(identity.device).catch((error: unknown) => logger.error({ err: error }, 'task re-drive failed'));
    }
  });
}
