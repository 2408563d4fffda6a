// SUBSCRIBE: what a connection may subscribe to (acl.ts), and what a device's own subscriptions
// start. Its settings are pushed whenever it subscribes to them; once it has subscribed to its
// tasks it is ready, and delivery hands it what it holds and what waits for it.
//
// A phone with a stored session may subscribe before the gateway knows its connection: Aedes
// restores the session's subscriptions and sends CONNACK, then writes out the messages it kept for
// the session, and only after that announces the connection ("clientReady", takeover.ts). A
// SUBSCRIBE handled in between, and a restored subscription, find no connection of the device yet;
// the announcement looks at what the connection is subscribed to then (startTasksIfSubscribed).
import type { Aedes, Client } from 'aedes';
import type { Logger } from '../src/common/logger.ts';
import type { Metrics } from '../src/common/metrics.ts';
import { decideSubscribe } from './acl.ts';
import { identityOf } from './identity.ts';
import { TOPIC_PREFIX } from './topics.ts';
import type { ConnectHandler } from './connect.ts';
import type { DeviceSessions } from './sessions.ts';
import type { DeliveryPort, DeviceRecord } from './ports.ts';

type OwnTopic = 'tasks' | 'settings';

/** Whether the filters name the device's own topic of this kind, exactly or through a wildcard of its own level. */
function namesOwnTopic(filters: { has(filter: string): boolean }, deviceId: string, kind: OwnTopic): boolean {
  const base = `${TOPIC_PREFIX}${deviceId}/`;
  return filters.has(base + kind) || filters.has(`${base}#`) || filters.has(`${base}+`);
}

/** The device's connection takes tasks from now on: it is ready, and delivery hands it what waits for it. */
function startTasks(client: Client, sessions: DeviceSessions, delivery: DeliveryPort, device: DeviceRecord, logger: Logger): void {
  if (!sessions.markReady(device.id, client)) return;
  delivery.deviceReady(device).catch((error: unknown) => logger.error({ err: error }, 'task re-drive failed'));
}

/**
 * Called when the device's connection becomes its current one: ready at once when the connection
 * holds a subscription to its tasks already (restored with its session, or subscribed before the
 * connection was announced).
 */
export function startTasksIfSubscribed(client: Client, sessions: DeviceSessions, delivery: DeliveryPort, device: DeviceRecord, logger: Logger): void {
  // Aedes keeps a connection's subscriptions by filter; its type declarations leave the field out.
  const filters = (client as Client & { subscriptions?: Record<string, unknown> }).subscriptions ?? {};
  if (namesOwnTopic({ has: (filter) => Object.hasOwn(filters, filter) }, device.id, 'tasks')) startTasks(client, sessions, delivery, device, logger);
}

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
    if (namesOwnTopic(topics, identity.deviceId, 'settings')) void sessions.sendSettings(identity.device).catch((error: unknown) => logger.error({ err: error }, 'settings push failed'));
    // Before the connection is announced it is not the device's current one yet; the announcement
    // finds this subscription then (startTasksIfSubscribed).
    if (namesOwnTopic(topics, identity.deviceId, 'tasks') && sessions.connections.get(identity.deviceId) === client) {
      startTasks(client, sessions, delivery, identity.device, logger);
    }
  });
}
