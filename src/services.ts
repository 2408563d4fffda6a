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
  const dispatcher = new Dispatcher(db, presence, transient, events, statusIngestor, logger.child({ component: 'dispatch' }), {
    ackTimeoutMs: config.taskRetryAfterMs,
    sweepIntervalMs: Math.min(10_000, config.taskRetryAfterMs / 2),
  });
  const metrics = new Metrics();
  const messages = new MessageService(db, devices, new DevicePicker(presence), events, config.defaultPhoneRegion);
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
