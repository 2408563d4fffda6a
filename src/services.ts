// The composition root of the domain: every service, wired once, on one database. The HTTP
// server, the broker and the CLI all take their services from here.
import type { Config } from './config.ts';
import type { Database } from './storage/database.ts';
import type { Logger } from './shared/logger.ts';
import { GatewayEventBus } from './shared/events.ts';
import { Metrics } from './shared/metrics.ts';
import { AccountService } from './modules/accounts/service.ts';
import { ApiKeyService } from './modules/api-keys/service.ts';
import { DevicePresence } from './modules/devices/presence.ts';
import { DeviceService } from './modules/devices/service.ts';
import { DevicePicker } from './modules/messages/device-picker.ts';
import { DeviceLoad } from './modules/messages/device-load.ts';
import { SmsWriter } from './modules/messages/sms-writer.ts';
import { IN_FLIGHT_STATUSES } from './modules/messages/status.ts';
import { MessageService } from './modules/messages/service.ts';
import { IncomingService } from './modules/incoming/service.ts';
import { Dispatcher } from './modules/delivery/dispatcher.ts';
import { StatusIngestor } from './modules/delivery/status-ingestor.ts';
import { TransientStore } from './modules/delivery/transient-store.ts';
import { DestinationGuard } from './modules/webhooks/destination-guard.ts';
import { SecretBox } from './modules/webhooks/secret-box.ts';
import { WebhookOutbox } from './modules/webhooks/outbox.ts';
import { WebhookSender } from './modules/webhooks/sender.ts';
import { WebhookService } from './modules/webhooks/service.ts';
import { wireWebhooks } from './modules/webhooks/wiring.ts';

export interface Services {
  db: Database;
  events: GatewayEventBus;
  metrics: Metrics;
  presence: DevicePresence;
  accounts: AccountService;
  apiKeys: ApiKeyService;
  devices: DeviceService;
  messages: MessageService;
  incoming: IncomingService;
  statusIngestor: StatusIngestor;
  dispatcher: Dispatcher;
  webhooks: WebhookService;
  webhookSender: WebhookSender;
}

export function createServices(config: Config, db: Database, logger: Logger): Services {
  const events = new GatewayEventBus((error, event) => logger.error({ err: error, event }, 'event listener failed'));
  const presence = new DevicePresence(config.deviceOfflineAfterMs);
  const devices = new DeviceService(db, presence, events);
  const transient = new TransientStore();
  const statusIngestor = new StatusIngestor(db, transient, logger.child({ component: 'status' }));
  const load = new DeviceLoad();
  const dispatcher = new Dispatcher(db, presence, transient, events, statusIngestor, load, logger.child({ component: 'dispatch' }), {
    ackTimeoutMs: config.taskRetryAfterMs,
    sweepIntervalMs: Math.min(10_000, config.taskRetryAfterMs / 2),
  });
  const metrics = new Metrics();
  const messages = new MessageService(db, devices, new DevicePicker(presence, load), load, new SmsWriter(db), events, config.defaultPhoneRegion);
  followDeviceLoad(load, presence, events, statusIngestor);
  const incoming = new IncomingService(db);

  const secrets = SecretBox.fromConfig(config.webhooks.secretKey, config.dataDir);
  const guard = new DestinationGuard(config.webhooks.allowedHosts);
  const webhookSender = new WebhookSender(db, secrets, guard, config.webhooks, metrics, logger.child({ component: 'webhooks' }));
  const webhooks = new WebhookService(db, secrets, guard, config.webhooks.retryForMs, () => webhookSender.wake());
  wireWebhooks({
    db,
    outbox: new WebhookOutbox(config.webhooks.retryForMs),
    sender: webhookSender,
    webhooks,
    events,
    presence,
    devices,
    messages,
    incoming,
    statusIngestor,
    logger: logger.child({ component: 'webhooks' }),
  });

  return {
    db,
    events,
    metrics,
    presence,
    accounts: new AccountService(db),
    apiKeys: new ApiKeyService(db, logger.child({ component: 'api-keys' })),
    devices,
    messages,
    incoming,
    statusIngestor,
    dispatcher,
    webhooks,
    webhookSender,
  };
}

/** Keeps DeviceLoad's in-memory counts in step with what happens to devices and SMS. */
function followDeviceLoad(load: DeviceLoad, presence: DevicePresence, events: GatewayEventBus, ingestor: StatusIngestor): void {
  // Anything that may have changed a device behind our back makes it be read afresh.
  presence.on('online', (deviceId) => load.forget(deviceId));
  presence.on('offline', (deviceId) => load.forget(deviceId));
  events.on('device.settings_changed', (device) => load.forget(device.id));
  events.on('device.deleted', (device) => load.forget(device.id));
  ingestor.onApplied((changes) => {
    for (const change of changes) {
      const to = change.path[change.path.length - 1]!;
      if (!change.transient && IN_FLIGHT_STATUSES.includes(change.from) && !IN_FLIGHT_STATUSES.includes(to)) load.finished(change.deviceId);
    }
  });
}
