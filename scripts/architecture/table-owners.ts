// Who owns each table: the feature whose migration made it (db/migrations), named by the folder
// its code lives in. Only the owner's files write SQL over a table; any other file that does
// must be listed in SHARED_TABLES below, with why the owner cannot answer for it.
//
// A table a migration makes and this list does not name is a breach too: a new table gets its
// owner when it is made.

export const TABLE_OWNERS: Readonly<Record<string, string>> = {
  // 001 foundation
  accounts: 'src/modules/accounts/',
  api_keys: 'src/modules/api-keys/',
  devices: 'src/modules/devices/',
  sms: 'src/modules/messages/',
  sms_status_history: 'src/modules/messages/',
  // 038 each account's SMS count, kept by triggers on sms
  sms_counts: 'src/modules/messages/',
  // 044 the text the legacy search reads, kept by triggers on sms
  sms_search: 'src/modules/messages/',
  // 002 device channel
  incoming_sms: 'src/modules/incoming/',
  // 004 webhooks; 033 the check that the secret key still opens what it sealed
  webhooks: 'src/modules/webhooks/',
  webhook_deliveries: 'src/modules/webhooks/',
  secret_key_check: 'src/modules/webhooks/',
  // 005 delivery; 021 send attempts
  device_dispatches: 'src/modules/delivery/',
  sms_attempts: 'src/modules/delivery/',
  sim_health: 'src/modules/delivery/',
  idempotency_keys: 'src/modules/idempotency/',
  // 009 users and sessions
  users: 'src/modules/users/',
  sessions: 'src/modules/sessions/',
  // 012 calls
  calls: 'src/modules/calls/',
  call_recordings: 'src/modules/calls/',
  // 013 deleted SMS
  deleted_sms: 'src/modules/messages/',
  // 017, 037 Twilio
  twilio_credentials: 'src/modules/twilio/',
  twilio_callbacks: 'src/modules/twilio/',
  twilio_messages: 'src/modules/twilio/',
  twilio_replies: 'src/modules/twilio/',
  // 018 SMPP
  smpp_credentials: 'src/modules/smpp/',
  smpp_submissions: 'src/modules/smpp/',
  smpp_receipts: 'src/modules/smpp/',
  // 020 USSD
  ussd_sessions: 'src/modules/ussd/',
  // 023 MMS
  media: 'src/modules/mms/',
  mms_messages: 'src/modules/mms/',
  mms_parts: 'src/modules/mms/',
  incoming_mms: 'src/modules/mms/',
  incoming_mms_parts: 'src/modules/mms/',
  // 025 suppressions and inbound rules
  opt_out_settings: 'src/modules/opt-out/',
  suppressions: 'src/modules/opt-out/',
  inbound_rules: 'src/modules/inbound-rules/',
  inbound_auto_replies: 'src/modules/inbound-rules/',
  incoming_sms_tags: 'src/modules/inbound-rules/',
  // 026 conversations, contacts, retention
  conversations: 'src/modules/conversations/',
  contacts: 'src/modules/contacts/',
  contact_groups: 'src/modules/contacts/',
  contact_group_members: 'src/modules/contacts/',
  message_templates: 'src/modules/contacts/',
  account_retention: 'src/modules/retention/',
  // 027, 028 mail
  mail_senders: 'src/modules/mail/',
  mail_settings: 'src/modules/mail/',
  // 029 the queue of stored files to remove, which several features' deletions fill
  file_removals: 'src/storage/file-removals.ts',
  // 042 fleet health: canary rounds and their probes
  canary_settings: 'src/modules/fleet-health/',
  canary_probes: 'src/modules/fleet-health/',
  // 043 per-SIM limits and sticky sender
  sim_month_usage: 'src/modules/delivery/',
  sim_month_recipients: 'src/modules/delivery/',
  sticky_senders: 'src/modules/delivery/',
  delivery_settings: 'src/modules/delivery/',
  // 046 each device's changes between online and offline
  device_availability: 'src/modules/availability/',
  // 047 upstream providers and routes
  upstreams: 'src/modules/upstreams/',
  account_routes: 'src/modules/upstreams/',
  upstream_submissions: 'src/modules/upstreams/',
  upstream_month_usage: 'src/modules/upstreams/',
};

export interface SharedTable {
  table: string;
  /** A folder (ending in /) or a file. */
  by: string;
  why: string;
}

/**
 * SQL over a table outside its owner, each for a reason. Most are a table read inside one
 * statement of another feature, where asking the owner would cost a round trip on a hot path or
 * split one consistent read into two.
 */
export const SHARED_TABLES: readonly SharedTable[] = [
  {
    table: 'sms',
    by: 'src/modules/upstreams/routing/handout.ts',
    why: 'the router hands SMS to upstreams and back as the dispatcher hands them to phones: one statement on rows it locks, so that a phone report and the router never both move one SMS',
  },
  {
    table: 'suppressions',
    by: 'src/modules/upstreams/routing/handout.ts',
    why: 'the router checks the recipient against the suppression list in the statement that locks the SMS, as the phones\' claim does',
  },
  {
    table: 'sms_status_history',
    by: 'src/modules/upstreams/routing/handout.ts',
    why: 'an SMS an upstream refused goes back to the phones with its history entry in the statement that moves it',
  },
  {
    table: 'accounts',
    by: 'src/storage/account-name.ts',
    why: 'the administrator lists of users and API keys name each row its account in the same query',
  },
  {
    table: 'accounts',
    by: 'src/modules/users/repository.ts',
    why: 'the last-owner guard locks the account row with its owners, in one transaction',
  },
  {
    table: 'users',
    by: 'src/modules/accounts/repository.ts',
    why: "the administrator's account list counts each account's users in the page's query",
  },
  {
    table: 'users',
    by: 'src/modules/sessions/repository.ts',
    why: 'a session is looked up with its user on every panel request',
  },
  {
    table: 'incoming_sms',
    by: 'src/modules/inbound-rules/repository.ts',
    why: 'the tag list reads the tags of received SMS joined to them',
  },
  {
    table: 'twilio_credentials',
    by: 'src/modules/webhooks/outbound/secret-key-check.ts',
    why: 'the secret key check opens one sealed value of each table that holds them, at start',
  },
  {
    // The messages module writes an SMS; from then on the rows are the delivery queue. Each
    // status change is a delivery status change (src/modules/delivery/status-change.ts), and the
    // messages module sits below delivery: moving these statements there would make the two
    // modules import each other, or split each claim and report into more statements.
    table: 'sms',
    by: 'src/modules/delivery/repository.ts',
    why: 'the claim, the hand-out, the releases and the status changes are single statements over sms joined to the delivery tables',
  },
  {
    table: 'sms_status_history',
    by: 'src/modules/delivery/repository.ts',
    why: "a status change writes the SMS's history entries in the statement that changes it",
  },
  {
    table: 'sms',
    by: 'src/modules/delivery/attempts.ts',
    why: 'a retry puts the SMS back in the queue, and the attempts of an SMS are shown only to its account',
  },
  {
    table: 'devices',
    by: 'src/modules/delivery/repository.ts',
    why: "the claim reads the device's pacing settings with its SIM pauses, dispatches and tasks in flight in one statement, and the SMS a claim refuses or a status change ends are answered with their device's public id",
  },
  {
    table: 'suppressions',
    by: 'src/modules/delivery/repository.ts',
    why: 'the claim refuses opted-out numbers in the statement that picks the SMS',
  },
  {
    table: 'mms_messages',
    by: 'src/modules/delivery/repository.ts',
    why: "the claim checks an MMS's recipients against the suppressions in the statement that picks it",
  },
  {
    table: 'accounts',
    by: 'src/modules/delivery/repository.ts',
    why: "a status report reads the account's attempt limit with the SMS it locks",
  },
  {
    // To go: the MMS store shares the device row's lock as calls do, through
    // shareLiveDeviceLock in src/modules/devices/shared-queries.ts.
    table: 'devices',
    by: 'src/modules/mms/service.ts',
    why: 'a received MMS is stored under a share lock of its device row, so a deletion cannot miss it',
  },
{
    // The SIM breaker's row carries the SIM's degraded state too, so that a claim reads pauses
    // and degradation in the one sim_health read it already makes.
    table: 'sim_health',
    by: 'src/modules/fleet-health/health/repository.ts',
    why: "the health judge writes a SIM's degraded state on the row the claim already reads for its pause",
  },
  {
    table: 'sms',
    by: 'src/modules/fleet-health/health/repository.ts',
    why: "a device's health counts its SMS per SIM over a day in one aggregate, off the send path",
  },
  {
    table: 'incoming_sms',
    by: 'src/modules/fleet-health/health/repository.ts',
    why: "a device's health reads when each SIM last received an SMS with its other figures",
  },
  {
    table: 'canary_probes',
    by: 'src/modules/stats/fleet-queries.ts',
    why: "the device report joins each SIM's figures to its canary pass rate in one statement over the range",
  },
  {
    table: 'devices',
    by: 'src/modules/stats/fleet-queries.ts',
    why: 'the device report and the fleet gauge name and count the account devices in the statement that sums them',
  },
  {
    table: 'sim_health',
    by: 'src/modules/stats/fleet-queries.ts',
    why: "the fleet gauge counts each account's SIMs healthy and degraded at scrape time, and the dashboard names the devices with a degraded SIM, one statement each",
  },
  {
    table: 'sms',
    by: 'src/modules/stats/upstream-queries.ts',
    why: "the upstream report counts the account's SMS of a range by the route that carried them, each figure one statement over the range",
  },
  {
    table: 'sms_attempts',
    by: 'src/modules/upstreams/routing/handout.ts',
    why: 'handing an SMS to an upstream moves its attempt number on only when the attempt it is on was tried (has a row), in the statement that hands it over',
  },
  {
    table: 'sms_attempts',
    by: 'src/modules/stats/upstream-queries.ts',
    why: 'the upstream report counts the SMS handed to each upstream, accepted or not, from their attempts through it, joined to the SMS of the range',
  },
  {
    table: 'upstream_submissions',
    by: 'src/modules/stats/upstream-queries.ts',
    why: 'the upstream report sums the segments and the cost recorded per part, joined to the SMS of the range',
  },
  {
    table: 'upstreams',
    by: 'src/modules/stats/upstream-queries.ts',
    why: "the upstream report names the account's upstreams beside their figures",
  },
];
