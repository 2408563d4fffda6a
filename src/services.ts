// The composition root of the domain: every service, wired once, on one database. The HTTP
// server, the broker and the CLI all take their services from here.
import type { Config } from './config.ts';
import type { Database } from './storage/database.ts';
import type { Logger } from './common/logger.ts';
import { DomainEvents } from './events/domain-events.ts';
import type { DomainEventMap, GatewayEvents } from './event-catalog.ts';
import { createAccountServices, type AccountServices } from './account-services.ts';
import type { AccountService } from './modules/accounts/service.ts';
import type { ApiKeyService } from './modules/api-keys/service.ts';
import type { DeviceService } from './modules/devices/service.ts';
import type { WebhookService } from './modules/webhooks/registration/service.ts';
import type { UserService } from './modules/users/service.ts';
import type { SessionService } from './modules/sessions/service.ts';
import type { TwilioService } from './modules/twilio/service.ts';
import type { SmppService } from './modules/smpp/service.ts';
import { Metrics } from './common/metrics.ts';
import { Admission } from './common/admission.ts';
import { systemClock, type Clock } from './common/clock.ts';
import { AuthThrottle } from './common/auth-throttle.ts';
import { DevicePresence } from './modules/devices/presence.ts';
import type { RemotePresence } from './modules/devices/remote-presence.ts';
import { SmsWriter } from './modules/messages/sms-writer.ts';
import { MessageService } from './modules/messages/service.ts';
import { IncomingService } from './modules/incoming/service.ts';
import { CallService } from './modules/calls/service.ts';
import { RecordingService } from './modules/calls/recordings/service.ts';
import { RecordingRetention } from './modules/calls/recordings/retention.ts';
import { openRecordingStore } from './modules/calls/recordings/open-store.ts';
import { IdempotencyService } from './modules/idempotency/service.ts';
import { Dispatcher, type DeviceLink, type TransientHandOff } from './modules/delivery/dispatcher.ts';
import { PauseAnnouncer } from './modules/delivery/pause-announcer.ts';
import { StatusIngestor } from './modules/delivery/status-ingestor.ts';
import { TransientStore } from './modules/delivery/transient-store.ts';
import { TaskService } from './modules/delivery/task-service.ts';
import { WebhookSender } from './modules/webhooks/outbound/sender.ts';
import { wireDeliveryWebhooks } from './modules/delivery/webhook-wiring.ts';
import { wireIncomingWebhooks } from './modules/incoming/webhook-wiring.ts';
import { wireOptOutWebhooks } from './modules/opt-out/webhook-wiring.ts';
import { wireDeviceWebhooks } from './modules/devices/webhook-wiring.ts';
import { wireCallWebhooks } from './modules/calls/webhook-wiring.ts';
import { LiveHub, type LiveRelay } from './modules/live/hub.ts';
import { wireLive } from './modules/live/wiring.ts';
import { LoginThrottle } from './modules/sessions/login-throttle.ts';
import { StatsService } from './modules/stats/service.ts';
import { CacheInvalidation } from './cluster/invalidation.ts';
import { twilioFormat } from './modules/twilio/delivery-format.ts';
import { replyWithTwiml } from './use-cases/reply-with-twiml.ts';
import type { CreateSmsParts } from './use-cases/create-sms.ts';
import { UssdService, type UssdLink } from './modules/ussd/service.ts';
import { wireUssdWebhooks } from './modules/ussd/webhook-wiring.ts';
import { MediaService } from './modules/mms/media-service.ts';
import { MmsRedaction } from './modules/mms/redaction/service.ts';
import { MmsService } from './modules/mms/service.ts';
import { MmsTaskLink } from './modules/mms/task-link.ts';
import { OverdueMmsSweep } from './modules/mms/overdue-sweep.ts';
import { hearingMmsText, receivedText } from './modules/mms/received-text.ts';
import { wireMmsWebhooks } from './modules/mms/webhook-wiring.ts';
import { OptOutService } from './modules/opt-out/service.ts';
import { answerOptOut } from './use-cases/answer-opt-out.ts';
import { OptedOutLists } from './modules/opt-out/device-list.ts';
import { pushOptedOutListOnChange } from './use-cases/push-opted-out-list.ts';
import { InboundRuleService } from './modules/inbound-rules/service.ts';
import { smtpMailer } from './modules/inbound-rules/mailer.ts';
import { MailService } from './modules/mail/service.ts';
import { applyInboundRules, type ApplyInboundRulesParts } from './use-cases/apply-inbound-rules.ts';
import { ConversationService } from './modules/conversations/service.ts';
import { RetentionService } from './modules/retention/service.ts';
import { ContactService } from './modules/contacts/service.ts';
import { RetentionSweep } from './use-cases/retention-sweep.ts';

export interface Services {
  db: Database;
  /** Email to SMS: who wrote to which number by email, and their replies back by email. */
  mail: MailService;
  clock: Clock;
  /** The one seam control passes through from one module to another (src/event-catalog.ts lists what goes through it). */
  events: GatewayEvents;
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
  /** MMS media: uploads, downloads, and their files. */
  media: MediaService;
  /** MMS out (their parts, added to their tasks) and in (reports, part uploads). */
  mms: MmsService;
  /** Removes media older than MEDIA_RETENTION_DAYS, hourly. */
  mediaRetention: RecordingRetention;
  /** Ends received MMS whose parts did not all come in time, every minute. */
  overdueMms: OverdueMmsSweep;
  idempotency: IdempotencyService;
  statusIngestor: StatusIngestor;
  dispatcher: Dispatcher;
  /** Announces a device's pause and its end (device.paused, device.resumed), once a second. */
  pauseAnnouncer: PauseAnnouncer;
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
  /** USSD sessions through the phones, and their expiry sweep. */
  ussd: UssdService;
  /** The suppression list (numbers that sent STOP) and the account's opt-out settings. */
  optOut: OptOutService;
  /** Rules tried on every received SMS (auto-reply, forward, tag), with their counts. */
  inboundRules: InboundRuleService;
  /** One conversation per remote number: last activity, newest SMS each way, unread count. */
  conversations: ConversationService;
  /** How long each account keeps message text, and whether numbers are then hashed. */
  retention: RetentionService;
  /** Applies the accounts' retention settings, hourly. */
  retentionSweep: RetentionSweep;
  /** Contacts, groups of contacts and message templates. */
  contacts: ContactService;
}

/** What the gateway makes before its services, and gives to their constructors. */
export interface ServiceParts {
  metrics?: Metrics;
  /** The broker's way to devices; none in a command, where no broker runs. */
  deviceLink?: DeviceLink;
  /** The broker's way to hand USSD requests to phones; none in a command. */
  ussdLink?: UssdLink;
  /** Tells other nodes what to drop from their caches; without it, a single node's (which tells no one). */
  invalidation?: CacheInvalidation;
  /** The accounts' suppression lists as phones get them, which the broker's settings pushes read too; made here when absent. */
  optedOutLists?: OptedOutLists;
  /** Several nodes (src/cluster/cluster.ts): what the services ask of the other nodes. */
  cluster?: { presence: RemotePresence; transients: TransientHandOff; live: LiveRelay };
}

/** The metrics of a node; several nodes scraped into one Prometheus must be told apart. */
export function createMetrics(config: Config): Metrics {
  return new Metrics(config.redisUrl ? { node: config.nodeId } : {});
}

export function createServices(config: Config, db: Database, logger: Logger, clock: Clock = systemClock, parts: ServiceParts = {}): Services {
  const events = new DomainEvents<DomainEventMap>((error, event) => logger.error({ err: error, event }, 'event listener failed'));
  const presence = new DevicePresence(config.deviceOfflineAfterMs, events, clock, parts.cluster?.presence);
  const invalidation = parts.invalidation ?? new CacheInvalidation(logger.child({ component: 'cluster' }));
  // What keeps the account's own records, made as a one-shot command makes it; the webhook sender
  // it wakes is made below (the type is spelled out because of that forward reference).
  const accountServices: AccountServices = createAccountServices(config, db, logger, { events, presence, invalidation, clock, wakeWebhookSender: () => webhookSender.wake() });
  const { devices, webhooks, twilio, smpp, secrets, guard, outbox } = accountServices;
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
  // Media go to the recordings' store: the same bucket when one is set, else their own directory.
  const media = new MediaService(db, openRecordingStore({ ...config.recordings, directory: config.mms.directory }), config.mms, clock, logger.child({ component: 'media' }));
  const mms = new MmsService(db, media, events, clock, logger.child({ component: 'mms' }));
  // An MMS's task gets its subject and parts on its way to the phone.
  const deviceLink = parts.deviceLink && new MmsTaskLink(parts.deviceLink, mms);
  const dispatcher = new Dispatcher(db, presence, transient, events, clock, dispatchLogger, dispatching, deviceLink, parts.cluster?.transients);
  const metrics = parts.metrics ?? createMetrics(config);

  // A TwiML answer to an incoming SMS is sent through the phone that received it; the services
  // it needs are made below, before any delivery can be answered.
  const formats = new Map([
    ['twilio', twilioFormat((replies) => replyWithTwiml({ messages, idempotency, incoming }, replies).then(() => undefined), (incomingId, deliveryId) => twilio.claimReply(incomingId, deliveryId))],
  ]);
  const webhookSender = new WebhookSender(db, secrets, guard, config.webhooks, metrics, logger.child({ component: 'webhooks' }), formats);

  // A callback_id must name one of the account's webhooks; a recipient must not have opted out.
  const optOut = new OptOutService(db, events, clock, config.defaultPhoneRegion);
  const messages = new MessageService(db, devices, dispatcher, new SmsWriter(db), events, clock, config.defaultPhoneRegion, webhooks, optOut);
  const incoming = new IncomingService(db, events);
  const idempotency = new IdempotencyService(db, clock);
  const calls = new CallService(db, events, config.defaultPhoneRegion);
  const recordings = new RecordingService(db, openRecordingStore(config.recordings), events, config.recordings, clock, logger.child({ component: 'recordings' }));
  const live = new LiveHub(parts.cluster?.live);

  // Who hears what. Modules announce; whoever listens is decided here, and only here.
  listenDelivery(events, dispatcher);
  // A deleted call (or phone) takes its recording's file along; its row went with the call.
  events.on('call.deleted', ({ recording }) => recordings.removeFile(recording));
  // SMS created through the Twilio API call their StatusCallback: webhook deliveries of the "twilio"
  // format, written with the standard events of the same status changes.
  wireDeliveryWebhooks({ db, outbox, sender: webhookSender, events, devices, statusCallbacks: twilio.statusCallbacks });
  wireIncomingWebhooks(events, outbox, webhookSender);
  wireOptOutWebhooks(events, outbox, webhookSender);
  wireDeviceWebhooks({ db, outbox, sender: webhookSender, events, devices, invalidation, logger: logger.child({ component: 'webhooks' }) });
  wireCallWebhooks(events, outbox, webhookSender);
  wireMmsWebhooks(events, outbox, webhookSender);
  wireLive(live, events);
  // Incoming SMS go to the sms_url of the account's Twilio credentials ("twilio" format deliveries).
  events.listen('incoming.stored', twilio.incomingStored);
  listenSmpp(events, smpp);
  const ussd = new UssdService(db, devices, presence, events, clock, logger.child({ component: 'ussd' }), { defaultTimeoutMs: config.ussdTimeoutMs, sweepIntervalMs: 1_000 }, parts.ussdLink);
  wireUssdWebhooks(events, outbox, webhookSender);
  listenOptOut(events, optOut, { messages, idempotency }, logger);
  pushOptedOutListOnChange({
    events,
    lists: parts.optedOutLists ?? new OptedOutLists(db, logger.child({ component: 'opt-out' })),
    devices,
    link: deviceLink,
    invalidation,
    logger: logger.child({ component: 'opt-out' }),
  });
  // A rule's match_device_id must name one of the account's devices.
  const deviceOfAccount = { exists: (accountId: string, deviceId: string) => devices.get(accountId, deviceId).then(() => true, () => false) };
  const inboundRules = new InboundRuleService(db, clock, config.defaultPhoneRegion, config.inboundRules, deviceOfAccount);
  // One relay for the gateway's mail (SMTP_URL, MAIL_FROM): rules' forwards and email-to-SMS replies.
  const mailer = smtpMailer(config.inboundRules.smtpUrl, config.inboundRules.mailFrom);
  listenInboundRules(events, {
    messages,
    idempotency,
    rules: inboundRules,
    mailer,
    logger: logger.child({ component: 'inbound-rules' }),
  });
  // A sent SMS and a received one (an SMS, or an MMS by its text) move their number's conversation (a received one in its transaction).
  const conversations = new ConversationService(db, clock, config.defaultPhoneRegion, logger.child({ component: 'conversations' }));
  events.listen('sms.queued', conversations.smsQueued);
  events.listen('incoming.stored', conversations.incomingStored);
  events.listen('incoming_mms.stored', hearingMmsText(conversations.incomingStored));
  const retention = new RetentionService(db, clock);
  // Email to SMS: an SMS received from a number someone last wrote to by email goes back to them by email, once stored.
  // Without SMTP_DOMAIN there is no address to answer from (and no listener takes mail): nothing listens.
  const mail = new MailService(db, clock, logger.child({ component: 'mail' }), mailer, config.smtp.domain, config.smtp.text);
  if (config.smtp.domain) events.on('incoming.stored', mail.incomingStored);

  const authThrottle = new AuthThrottle(config.authThrottle, clock, { metrics, logger: logger.child({ component: 'auth' }) });

  return {
    db,
    clock,
    events,
    live,
    metrics,
    admission: new Admission(config.admission),
    presence,
    authThrottle,
    accounts: accountServices.accounts,
    mail,
    apiKeys: accountServices.apiKeys,
    devices,
    messages,
    incoming,
    calls,
    recordings,
    recordingRetention: new RecordingRetention(recordings, logger.child({ component: 'recordings' })),
    media,
    mms,
    mediaRetention: new RecordingRetention(media, logger.child({ component: 'media' })),
    overdueMms: new OverdueMmsSweep(mms, logger.child({ component: 'mms' })),
    idempotency,
    statusIngestor,
    dispatcher,
    pauseAnnouncer: new PauseAnnouncer(db, events, clock, dispatchLogger),
    tasks,
    webhooks,
    webhookSender,
    users: accountServices.users,
    sessions: accountServices.sessions,
    stats: new StatsService(db, presence, clock),
    invalidation,
    twilio,
    // The login channel of the one throttle: per address and per email, apart from keys and phones.
    loginThrottle: new LoginThrottle(authThrottle),
    smpp,
    ussd,
    optOut,
    inboundRules,
    conversations,
    retention,
    contacts: new ContactService(db, clock, config.defaultPhoneRegion),
    retentionSweep: new RetentionSweep(
      { retention, messages, incoming, conversations, mmsRedaction: new MmsRedaction(db, clock), webhooks, calls, mail, files: [media, recordings] },
      clock,
      logger.child({ component: 'retention' }),
    ),
  };
}

/**
 * Opt-out hears every received SMS, and the text of every received MMS, in the transaction that
 * stores it (a STOP lists its sender with it), and answers a keyword once that commits, through
 * the phone that received it.
 */
function listenOptOut(events: GatewayEvents, optOut: OptOutService, parts: CreateSmsParts, logger: Logger): void {
  events.listen('incoming.stored', { inTransaction: (trx, sms) => optOut.heard(trx, sms) });
  // A keyword sent as an MMS is the same keyword (a STOP sent as a text-only MMS must hold too).
  events.listen('incoming_mms.stored', hearingMmsText({ inTransaction: (trx, sms) => optOut.heard(trx, sms) }));
  events.on('opt_out.reply_due', (reply) =>
    answerOptOut(parts, reply).catch((error: unknown) => logger.warn({ err: error, accountId: reply.accountId }, 'opt-out answer not sent')),
  );
}

/**
 * What SMPP hears, in the transaction of the change: a status change an ESME asked a receipt of,
 * an incoming SMS its credentials may hear. Stored with the change, they survive a restart; the
 * SMPP listener (src/gateway.ts) sends them once committed.
 */
function listenSmpp(events: GatewayEvents, smpp: SmppService): void {
  events.listen('sms.status_changed', { inTransaction: async (trx, changes) => void (await smpp.receiptsFor(trx, changes)) });
  events.listen('incoming.stored', { inTransaction: async (trx, sms) => void (await smpp.incomingFor(trx, sms)) });
}

/** Inbound rules run once a received SMS or MMS is committed (after a stop keyword listed its sender, so no auto-reply reaches it). */
function listenInboundRules(events: GatewayEvents, parts: ApplyInboundRulesParts): void {
  events.on('incoming.stored', (sms) => void applyInboundRules(parts, sms).catch((error: unknown) => parts.logger.error({ err: error }, 'inbound rules not applied')));
  // The text of a received MMS meets the same rules.
  events.on('incoming_mms.stored', (mms) =>
    void applyInboundRules(parts, receivedText(mms), 'mms').catch((error: unknown) => parts.logger.error({ err: error }, 'inbound rules not applied to an MMS')),
  );
}

/** What the dispatcher hears: new work, devices that change, and every status change. */
function listenDelivery(events: GatewayEvents, dispatcher: Dispatcher): void {
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
