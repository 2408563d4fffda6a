// The services that keep an account's own records: the account, its keys, users and their
// sessions, devices, webhooks, Twilio and SMPP credentials. The gateway makes them as part of all
// its services (services.ts); a one-shot command (`sms-gateway keys list`) makes only these, so
// that it loads and opens none of the delivery pipeline, the webhook sender, the mail relay or
// the media stores. Both make them here, the same way, with the same listeners.
import type { Config } from './config.ts';
import type { Database } from './storage/database.ts';
import type { Logger } from './common/logger.ts';
import type { Clock } from './common/clock.ts';
import type { DomainEvents } from './events/domain-events.ts';
import type { DevicesEvents } from './modules/devices/domain-events.ts';
import type { SmppEvents } from './modules/smpp/domain-events.ts';
import type { UsersEvents } from './modules/users/domain-events.ts';
import type { WebhooksEvents } from './modules/webhooks/domain-events.ts';
import type { CacheInvalidation } from './cluster/invalidation.ts';
import { AccountService } from './modules/accounts/service.ts';
import { ApiKeyService } from './modules/api-keys/service.ts';
import type { DevicePresence } from './modules/devices/presence.ts';
import { DeviceService } from './modules/devices/service.ts';
import { DestinationGuard } from './modules/webhooks/outbound/destination-guard.ts';
import { SecretBox } from './modules/webhooks/outbound/secret-box.ts';
import { WebhookOutbox } from './modules/webhooks/ordering/outbox.ts';
import { WebhookService } from './modules/webhooks/registration/service.ts';
import { UserService } from './modules/users/service.ts';
import { SessionService } from './modules/sessions/service.ts';
import { TwilioService } from './modules/twilio/service.ts';
import { SmppService } from './modules/smpp/service.ts';

export interface AccountServices {
  accounts: AccountService;
  apiKeys: ApiKeyService;
  users: UserService;
  sessions: SessionService;
  devices: DeviceService;
  webhooks: WebhookService;
  twilio: TwilioService;
  smpp: SmppService;
  /** Encrypts webhook and Twilio secrets at rest (WEBHOOK_SECRET_KEY, or a key file in DATA_DIR). */
  secrets: SecretBox;
  /** Refuses webhook URLs that point inside the gateway's network (WEBHOOK_ALLOWED_HOSTS opens some). */
  guard: DestinationGuard;
  /** Where webhook deliveries are written, in the transaction of what they tell. */
  outbox: WebhookOutbox;
}

export interface AccountServiceParts {
  /** The seam, for the events these services announce and hear. */
  events: DomainEvents<DevicesEvents & SmppEvents & UsersEvents & WebhooksEvents>;
  presence: DevicePresence;
  invalidation: CacheInvalidation;
  clock: Clock;
  /** Wakes the webhook sender (a test event was written); a command has no sender to wake. */
  wakeWebhookSender: () => void;
}

export function createAccountServices(config: Config, db: Database, logger: Logger, parts: AccountServiceParts): AccountServices {
  const { events, presence, invalidation, clock } = parts;
  const secrets = SecretBox.fromConfig(config.webhooks.secretKey, config.dataDir);
  const guard = new DestinationGuard(config.webhooks.allowedHosts);
  const outbox = new WebhookOutbox(config.webhooks.retryForMs);
  const devices = new DeviceService(db, presence, events, logger.child({ component: 'devices' }), invalidation);
  const webhooks = new WebhookService(db, secrets, guard, config.webhooks.retryForMs, outbox, parts.wakeWebhookSender, events);
  const users = new UserService(db, logger.child({ component: 'users' }), events, config.sessions.passwordHashCost);
  const accounts = new AccountService(db, logger.child({ component: 'accounts' }), invalidation);
  const sessions = new SessionService(db, users, config.sessions, clock, logger.child({ component: 'sessions' }), accounts);
  // A disabled user's sessions, or those of a user whose password was reset, end with the change.
  events.listen('user.locked_out', { inTransaction: (trx, { userId }) => sessions.endAllOf(trx, userId) });
  // Changed webhooks are told to the other nodes (and, from a command, to every running node):
  // they drop what they cached of whether the account listens for device events.
  events.on('webhooks.changed', ({ accountId }) => invalidation.publish('webhooks', accountId));
  return {
    accounts,
    apiKeys: new ApiKeyService(db, logger.child({ component: 'api-keys' }), invalidation),
    users,
    sessions,
    devices,
    webhooks,
    twilio: new TwilioService(db, secrets, webhooks, logger.child({ component: 'twilio' }), devices),
    smpp: new SmppService(db, devices, events, clock, logger.child({ component: 'smpp' }), invalidation),
    secrets,
    guard,
    outbox,
  };
}
