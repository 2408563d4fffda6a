// The composition root of the domain: every service, wired once, on one database. The HTTP
// server, the broker and the CLI all take their services from here.
import type { Config } from './config.ts';
import type { Database } from './storage/database.ts';
import type { Logger } from './common/logger.ts';
import { GatewayEventBus } from './common/events.ts';
import { Metrics } from './common/metrics.ts';
import { Admission } from './common/admission.ts';
import { systemClock, type Clock } from './common/clock.ts';
import { AuthThrottle } from './common/auth-throttle.ts';
import { AccountService } from './modules/accounts/service.ts';
import { ApiKeyService } from './modules/api-keys/service.ts';
import { DevicePresence } from './modules/devices/presence.ts';
import type { RemotePresence } from './modules/devices/remote-presence.ts';
import { DeviceService } from './modules/devices/service.ts';
import { SmsWriter } from './modules/messages/sms-writer.ts';
import { StatusHooks } from './modules/delivery/status-hooks.ts';
import { MessageService } from './modules/messages/service.ts';
import { IncomingService } from './modules/incoming/service.ts';
import { CallService } from './modules/calls/service.ts';
import { wireCallWebhooks } from './modules/calls/webhooks.ts';
import { RecordingService } from './modules/calls/recordings/service.ts';
import { RecordingRetention } from './modules/calls/recordings/retention.ts';
import { openRecordingStore } from './modules/calls/recordings/open-store.ts';
import { wireRecordingWebhooks } from './modules/calls/recordings/webhooks.ts';
import { IdempotencyService } from './modules/idempotency/service.ts';
import { Dispatcher, type DeviceLink, type TransientHandOff } from './modules/delivery/dispatcher.ts';
import { StatusIngestor } from './modules/delivery/status-ingestor.ts';
import { TransientStore } from './modules/delivery/transient-store.ts';
import { DestinationGuard } from './modules/webhooks/destination-guard.ts';
import { SecretBox } from './modules/webhooks/secret-box.ts';
import { WebhookOutbox } from './modules/webhooks/outbox.ts';
import { WebhookSender } from './modules/webhooks/sender.ts';
import { WebhookService } from './modules/webhooks/service.ts';
import { wireWebhooks } from './modules/webhooks/wiring.ts';
import { LiveHub, type LiveRelay } from './modules/live/hub.ts';
import { wireLive } from './modules/live/wiring.ts';
import { UserService } from './modules/users/service.ts';
import { SessionService } from './modules/sessions/service.ts';
import { LoginThrottle } from './modules/sessions/login-throttle.ts';
import { StatsService } from './modules/stats/service.ts';
import { CacheInvalidation } from './cluster/invalidation.ts';

export interface Services {
  db: Database;
  clock: Clock;
  events: GatewayEventBus;
  /** The one seam every SMS status change leaves through. */
  statusHooks: StatusHooks;
  /** The control panel's live event streams. */
  live: LiveHub;
  metrics: Metrics;
  /** Whether the process can take more work now (HTTP requests, device connections). */
  admission: Admission;
  presence: DevicePresence;
  /** Failed authentications per client address; the HTTP API and the broker share it. */
  authThrottle: AuthThrottle;
  accounts: AccountService;
  apiKeys: ApiKeyService;
  devices: DeviceService;
  messages: MessageService;
  incoming: IncomingService;
  /** The call log the phones report. */
  calls: CallService;
  /** Call recordings: uploads, downloads, and their files. */
  recordings: RecordingService;
  /** Removes recordings older than RECORDINGS_RETENTION_DAYS, hourly. */
  recordingRetention: RecordingRetention;
  idempotency: IdempotencyService;
  statusIngestor: StatusIngestor;
  dispatcher: Dispatcher;
  webhooks: WebhookService;
  webhookSender: WebhookSender;
  users: UserService;
  sessions: SessionService;
  /** Failed logins per client address (the shared throttle) and per email. */
  loginThrottle: LoginThrottle;
  /** The dashboard's summary (reads only). */
  stats: StatsService;
  /** Tells other nodes what to drop from their caches (a no-op for a single node). */
  invalidation: CacheInvalidation;
}

/** What the gateway makes before its services, and gives to their constructors. */
export interface ServiceParts {
  metrics?: Metrics;
  /** The broker's way to devices; none in a command, where no broker runs. */
  deviceLink?: DeviceLink;
  /** Tells other nodes what to drop from their caches; without it, a single node's (which tells no one). */
  invalidation?: CacheInvalidation;
  /** Several nodes (src/cluster/cluster.ts): what the services ask of the other nodes. */
  cluster?: { presence: RemotePresence; transients: TransientHandOff; live: LiveRelay };
}

/** The metrics of a node; several nodes scraped into one Prometheus must be told apart. */
export function createMetrics(config: Config): Metrics {
  return new Metrics(config.redisUrl ? { node: config.nodeId } : {});
}

export function createServices(config: Config, db: Database, logger: Logger, clock: Clock = systemClock, parts: ServiceParts = {}): Services {
  const events = new GatewayEventBus((error, event) => logger.error({ err: error, event }, 'event listener failed'));
  const statusHooks = new StatusHooks((error) => logger.error({ err: error }, 'status hook failed'));
  const presence = new DevicePresence(config.deviceOfflineAfterMs, clock, parts.cluster?.presence);
  const invalidation = parts.invalidation ?? new CacheInvalidation(logger.child({ component: 'cluster' }));
  const devices = new DeviceService(db, presence, events, statusHooks, clock, logger.child({ component: 'devices' }), invalidation);
  const transient = new TransientStore();
  const statusIngestor = new StatusIngestor(db, transient, statusHooks, clock, logger.child({ component: 'status' }));
  const dispatching = {
    ackTimeoutMs: config.taskRetryAfterMs,
    failoverAfterMs: config.failoverAfterMs,
    sweepIntervalMs: 1_000,
    breaker: { failures: config.pauseAfterFailures, pauseMs: config.pauseForMs },
  };
  const dispatchLogger = logger.child({ component: 'dispatch' });
  const dispatcher = new Dispatcher(db, presence, transient, events, statusHooks, clock, dispatchLogger, dispatching, parts.deviceLink, parts.cluster?.transients);
  const metrics = parts.metrics ?? createMetrics(config);
  const messages = new MessageService(db, devices, dispatcher, new SmsWriter(db), statusHooks, events, clock, config.defaultPhoneRegion);
  const incoming = new IncomingService(db, events);
  const calls = new CallService(db, events, logger.child({ component: 'calls' }), config.defaultPhoneRegion);

  const secrets = SecretBox.fromConfig(config.webhooks.secretKey, config.dataDir);
  const guard = new DestinationGuard(config.webhooks.allowedHosts);
  const webhookSender = new WebhookSender(db, secrets, guard, config.webhooks, metrics, logger.child({ component: 'webhooks' }));
  const webhooks = new WebhookService(db, secrets, guard, config.webhooks.retryForMs, () => webhookSender.wake());
  const outbox = new WebhookOutbox(config.webhooks.retryForMs);
  wireWebhooks({
    db,
    outbox,
    sender: webhookSender,
    webhooks,
    events,
    presence,
    messages,
    incoming,
    statusHooks,
    invalidation,
    logger: logger.child({ component: 'webhooks' }),
  });
  wireCallWebhooks(calls, outbox, webhookSender);
  const recordings = new RecordingService(db, openRecordingStore(config.recordings), config.recordings, clock, logger.child({ component: 'recordings' }));
  wireRecordingWebhooks(recordings, outbox, webhookSender);
  // A deleted call (or phone) takes its recording's file along; its row went with the call.
  calls.onDeleted.push((_call, recording) => recordings.removeFile(recording));
  const live = new LiveHub(parts.cluster?.live);
  wireLive(live, { statusHooks, presence, events });

  const authThrottle = new AuthThrottle(config.authThrottle, clock, { metrics, logger: logger.child({ component: 'auth' }) });
  const users = new UserService(db, logger.child({ component: 'users' }), config.sessions.passwordHashCost);
  const accounts = new AccountService(db, logger.child({ component: 'accounts' }), invalidation);

  return {
    db,
    clock,
    events,
    live,
    statusHooks,
    metrics,
    admission: new Admission(config.admission),
    presence,
    authThrottle,
    accounts,
    apiKeys: new ApiKeyService(db, logger.child({ component: 'api-keys' }), invalidation),
    devices,
    messages,
    incoming,
    calls,
    recordings,
    recordingRetention: new RecordingRetention(recordings, logger.child({ component: 'recordings' })),
    idempotency: new IdempotencyService(db, clock),
    statusIngestor,
    dispatcher,
    webhooks,
    webhookSender,
    users,
    sessions: new SessionService(db, users, config.sessions, clock, logger.child({ component: 'sessions' }), accounts),
    stats: new StatsService(db, presence, clock),
    invalidation,
    // The login channel of the one throttle: per address and per email, apart from keys and phones.
    loginThrottle: new LoginThrottle(authThrottle),
  };
}
