// The composition root of the domain: every service, wired once, on one database. The HTTP
// server, the broker and the CLI all take their services from here.
import type { Config } from './config.ts';
import type { Database } from './storage/database.ts';
import type { Logger } from './common/logger.ts';
import { DomainEvents } from './events/domain-events.ts';
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
import { MessageService } from './modules/messages/service.ts';
import { IncomingService } from './modules/incoming/service.ts';
import { CallService } from './modules/calls/service.ts';
import { RecordingService } from './modules/calls/recordings/service.ts';
import { RecordingRetention } from './modules/calls/recordings/retention.ts';
import { openRecordingStore } from './modules/calls/recordings/open-store.ts';
import { IdempotencyService } from './modules/idempotency/service.ts';
import { Dispatcher, type DeviceLink, type TransientHandOff } from './modules/delivery/dispatcher.ts';
import { StatusIngestor } from './modules/delivery/status-ingestor.ts';
import { TransientStore } from './modules/delivery/transient-store.ts';
import { TaskService } from './modules/delivery/task-service.ts';
import { DestinationGuard } from './modules/webhooks/destination-guard.ts';
import { SecretBox } from './modules/webhooks/secret-box.ts';
import { WebhookOutbox } from './modules/webhooks/outbox.ts';
import { WebhookSender } from './modules/webhooks/sender.ts';
import { WebhookService } from './modules/webhooks/service.ts';
import { wireWebhooks } from './modules/webhooks/wiring.ts';
import { wireCallWebhooks } from './modules/webhooks/call-wiring.ts';
import { LiveHub, type LiveRelay } from './modules/live/hub.ts';
import { wireLive } from './modules/live/wiring.ts';
import { UserService } from './modules/users/service.ts';
import { SessionService } from './modules/sessions/service.ts';
import { LoginThrottle } from './modules/sessions/login-throttle.ts';
import { StatsService } from './modules/stats/service.ts';
import { CacheInvalidation } from './cluster/invalidation.ts';
import { TwilioService } from './modules/twilio/service.ts';
import { twilioFormat } from './modules/twilio/delivery-format.ts';
import { replyWithTwiml } from './use-cases/reply-with-twiml.ts';
import { SmppService } from './modules/smpp/service.ts';

export interface Services {
  db: Database;
  clock: Clock;
  /** The one seam control passes through from one module to another (src/events/catalog.ts lists what goes through it). */
  events: DomainEvents;
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
  /** What the use cases ask of delivery about SMS tasks (a device switched off or deleted, an SMS cancelled). */
  tasks: TaskService;
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
  /** The Twilio-compatible API's credentials and callbacks. */
  twilio: TwilioService;
  /** SMPP credentials, who submitted which SMS, and the deliver_sm owed to ESMEs. */
  smpp: SmppService;
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
  const events = new DomainEvents((error, event) => logger.error({ err: error, event }, 'event listener failed'));
  const presence = new DevicePresence(config.deviceOfflineAfterMs, events, clock, parts.cluster?.presence);
  const invalidation = parts.invalidation ?? new CacheInvalidation(logger.child({ component: 'cluster' }));
  const devices = new DeviceService(db, presence, events, logger.child({ component: 'devices' }), invalidation);
  const transient = new TransientStore();
  const tasks = new TaskService(db, events, clock);
  const statusIngestor = new StatusIngestor(db, transient, events, clock, logger.child({ component: 'status' }), undefined, { backoffMs: config.sendRetryBackoffMs });
  const dispatching = {
    ackTimeoutMs: config.taskRetryAfterMs,
    failoverAfterMs: config.failoverAfterMs,
    sweepIntervalMs: 1_000,
    breaker: { failures: config.pauseAfterFailures, pauseMs: config.pauseForMs },
    simBreaker: { failures: config.simPauseAfterFailures, pauseMs: config.simPauseForMs },
  };
  const dispatchLogger = logger.child({ component: 'dispatch' });
  const dispatcher = new Dispatcher(db, presence, transient, events, clock, dispatchLogger, dispatching, parts.deviceLink, parts.cluster?.transients);
  const metrics = parts.metrics ?? createMetrics(config);

  const secrets = SecretBox.fromConfig(config.webhooks.secretKey, config.dataDir);
  const guard = new DestinationGuard(config.webhooks.allowedHosts);
  // A TwiML answer to an incoming SMS is sent through the phone that received it; the services
  // it needs are made below, before any delivery can be answered.
  const formats = new Map([['twilio', twilioFormat((replies) => replyWithTwiml({ messages, idempotency, incoming }, replies).then(() => undefined))]]);
  const webhookSender = new WebhookSender(db, secrets, guard, config.webhooks, metrics, logger.child({ component: 'webhooks' }), formats);
  const outbox = new WebhookOutbox(config.webhooks.retryForMs);
  const webhooks = new WebhookService(db, secrets, guard, config.webhooks.retryForMs, outbox, () => webhookSender.wake(), events);

  // A callback_id must name one of the account's webhooks.
  const messages = new MessageService(db, devices, dispatcher, new SmsWriter(db), events, clock, config.defaultPhoneRegion, webhooks);
  const incoming = new IncomingService(db, events);
  const idempotency = new IdempotencyService(db, clock);
  const twilio = new TwilioService(db, secrets, webhooks, logger.child({ component: 'twilio' }));
  const calls = new CallService(db, events, config.defaultPhoneRegion);
  const recordings = new RecordingService(db, openRecordingStore(config.recordings), events, config.recordings, clock, logger.child({ component: 'recordings' }));
  const live = new LiveHub(parts.cluster?.live);

  // Who hears what. Modules announce; whoever listens is decided here, and only here.
  listenDelivery(events, dispatcher);
  // A deleted call (or phone) takes its recording's file along; its row went with the call.
  events.on('call.deleted', ({ recording }) => recordings.removeFile(recording));
  wireWebhooks({ db, outbox, sender: webhookSender, events, devices, invalidation, logger: logger.child({ component: 'webhooks' }) });
  wireCallWebhooks(events, outbox, webhookSender);
  wireLive(live, events);
  // SMS created through the Twilio API call their StatusCallback; incoming SMS go to the sms_url
  // of the account's Twilio credentials. Both are webhook deliveries of the "twilio" format.
  events.listen('sms.status_changed', twilio.statusChanges);
  events.listen('incoming.stored', twilio.incomingStored);
  const smpp = new SmppService(db, devices, events, clock, logger.child({ component: 'smpp' }), invalidation);
  listenSmpp(events, smpp);

  const authThrottle = new AuthThrottle(config.authThrottle, clock, { metrics, logger: logger.child({ component: 'auth' }) });
  const users = new UserService(db, logger.child({ component: 'users' }), events, config.sessions.passwordHashCost);
  const accounts = new AccountService(db, logger.child({ component: 'accounts' }), invalidation);
  const sessions = new SessionService(db, users, config.sessions, clock, logger.child({ component: 'sessions' }), accounts);
  events.listen('user.locked_out', { inTransaction: (trx, { userId }) => sessions.endAllOf(trx, userId) });

  return {
    db,
    clock,
    events,
    live,
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
    idempotency,
    statusIngestor,
    dispatcher,
    tasks,
    webhooks,
    webhookSender,
    users,
    sessions,
    stats: new StatsService(db, presence, clock),
    invalidation,
    twilio,
    // The login channel of the one throttle: per address and per email, apart from keys and phones.
    loginThrottle: new LoginThrottle(authThrottle),
    smpp,
  };
}

/**
 * What SMPP hears, in the transaction of the change: a status change an ESME asked a receipt of,
 * an incoming SMS its credentials may hear. Stored with the change, they survive a restart; the
 * SMPP listener (src/gateway.ts) sends them once committed.
 */
function listenSmpp(events: DomainEvents, smpp: SmppService): void {
  events.listen('sms.status_changed', { inTransaction: async (trx, changes) => void (await smpp.receiptsFor(trx, changes)) });
  events.listen('incoming.stored', { inTransaction: async (trx, sms) => void (await smpp.incomingFor(trx, sms)) });
}

/** What the dispatcher hears: new work, devices that change, and every status change. */
function listenDelivery(events: DomainEvents, dispatcher: Dispatcher): void {
  events.listen('sms.status_changed', dispatcher.statusChanges);
  events.on('sms.attempts_ended', (ended) => dispatcher.attemptsEnded(ended));
  events.on('sms.queued', (sms) => dispatcher.queued(sms));
  events.on('sms.transient', (sms) => dispatcher.handTransient(sms));
  events.on('device.online', ({ deviceId }) => dispatcher.spokeAgain(deviceId));
  events.on('device.settings_changed', (device) => dispatcher.settingsChanged(device));
  events.on('device.deleted', (device) => dispatcher.deviceDeleted(device));
  events.on('device.token_replaced', (device) => dispatcher.tokenReplaced(device));
  events.on('tasks.withdrawn', (withdrawn) => dispatcher.revokeWithdrawn(withdrawn));
}
