// The shapes the panel reads from the Extended API, named. Each is taken from the TypeScript
// SDK's schema.ts, which is generated from the gateway's route declarations: a field the API
// renames or drops is a type error here rather than a blank cell in the browser. The API declares
// its schemas inline, per operation, so they are named by the operation that answers them.
import type { operations } from '../../../sdk/typescript/src/schema.ts';

type OperationId = keyof operations;

/** The JSON body `operation` answers with `status`. */
type Answer<Id extends OperationId, Status extends number = 200> = operations[Id]['responses'] extends Record<Status, { content: { 'application/json': infer Body } }> ? Body : never;

/** One row of a list operation's `data`. */
type Row<Id extends OperationId> = Answer<Id> extends { data: (infer Item)[] } ? Item : never;

export type SessionView = Answer<'getSession'>;
export type SessionUser = SessionView['user'];

export type Sms = Row<'listSms'>;
export type SmsStatus = Sms['status'];
export type SmsDetail = Answer<'getSms'>;
export type SmsHistoryEntry = SmsDetail['history'][number];
/** One row of POST /sms/bulk?dry_run=true. */
export type BulkCheck = Row<'createSmsBulk'>;
export type IncomingSms = Row<'listIncomingSms'>;
export type MmsView = Answer<'getMms'>;
export type IncomingMms = Row<'listIncomingMms'>;
export type Conversation = Row<'listConversations'>;
export type ThreadMessage = Row<'listConversationMessages'>;
export type Contact = Row<'listContacts'>;
export type ContactGroup = Row<'listContactGroups'>;
export type MessageTemplate = Row<'listTemplates'>;
/** One recipient of POST /contacts/send?dry_run=true. */
export type ContactSendCheck = Row<'sendToContacts'>;
/** One row of POST /contacts/import?dry_run=true. */
export type ContactImportCheck = Row<'importContacts'>;

export type Device = Row<'listDevices'>;
export type SimCard = Device['sim_cards'][number];
export type Limits = Device['limits'];
export type DeviceDetail = Answer<'getDevice'>;
export type DeviceQueue = DeviceDetail['queue'];
/** What POST /devices and POST /devices/{id}/token answer: the device token is shown this once. */
export type IssuedCredentials = Answer<'registerDevice', 201>;

/** A USSD session (POST /devices/{id}/ussd, GET /ussd/{id}). */
export type UssdSession = Answer<'getUssd'>;

export type Call = Row<'listCalls'>;
export type Recording = NonNullable<Call['recording']>;

export type Summary = Answer<'getStatsSummary'>;
export type HourlyOutcomes = Summary['hourly'][number];

export type WebhookView = Row<'listWebhooks'>;
export type WebhookWithSecret = Answer<'createWebhook', 201>;
export type DeliveryView = Row<'listWebhookDeliveries'>;

export type KeyView = Row<'listApiKeys'>;
export type KeyWithSecret = Answer<'createApiKey', 201>;

export type TwilioCredential = Row<'listTwilioCredentials'>;
export type TwilioCredentialWithToken = Answer<'createTwilioCredential', 201>;
export type SmppCredential = Row<'listSmppCredentials'>;
export type SmppCredentialWithPassword = Answer<'createSmppCredential', 201>;

export type Suppression = Row<'listSuppressions'>;
export type OptOutSettings = Answer<'getOptOutSettings'>;
export type RetentionSetting = Answer<'getRetention'>;
export type InboundRule = Row<'listInboundRules'>;
export type RuleDryRun = Answer<'dryRunInboundRules'>;

export type UserView = Row<'listUsers'>;
export type Role = UserView['role'];
export type CreatedUser = Answer<'createUser', 201>;

export type AccountView = Row<'listAccounts'>;
export type OpenedAccount = Answer<'createAccount', 201>;

export type SmsAttempt = Answer<'listSmsAttempts'>['data'][number];

/** GET /stats/devices: per device and SIM over a range. */
export type DeviceStats = Answer<'getDeviceStats'>;
export type DeviceStatsRow = DeviceStats['devices'][number];
export type SimStatsRow = DeviceStatsRow['sims'][number];
export type DegradedDevice = NonNullable<Summary['degraded_devices']>[number];

export type DeviceHealth = Answer<'getDeviceHealth'>;
export type HealthState = DeviceHealth['state'];
export type SimHealth = DeviceHealth['sims'][number];
export type HealthReason = DeviceHealth['reasons'][number];
export type CanaryResult = DeviceHealth['canary'][number];

/** GET/PATCH /account/canary: the account's canary rounds. */
export type CanarySettings = Answer<'getCanarySettings'>;
