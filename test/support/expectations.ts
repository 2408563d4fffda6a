// Shared expectations: the error body (README, "Errors"), the Extended API's device object
// (with its pacing and, in the detail view, its queue) and its SMS object. Each checks the
// exact shape, so an extra or missing member fails a test.
import { expect } from 'chai';
import { ERROR_CATALOG } from '../../src/common/errors.ts';
import type { Reply } from './tenant.ts';

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** A well-formed UUID that names nothing. */
export const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

/** Path ids that are not UUIDs; each must be a 400 invalid_id, never a lookup (or a 500). */
export const MALFORMED_IDS: readonly string[] = [
  'abc',
  '12345',
  '00000000-0000-4000-8000-00000000000', // one digit short
  '00000000-0000-4000-8000-0000000000000', // one digit long
  '00000000-0000-4000-8000-00000000000g', // not hex
  '000000000000400080000000000000000000', // no dashes, padded to 36
  'urn:uuid:00000000-0000-4000-8000-000000000000', // a UUID URN, not a UUID
];

/** Every member of the Extended API device object (its pacing and last_seen_at included), no more. */
export const DEVICE_KEYS = [
  'id',
  'type',
  'name',
  'name_custom',
  'group',
  'is_online',
  'is_charging',
  'battery_level',
  'signal_percent',
  'can_send_sms',
  'selected_sim',
  'notify_low_battery',
  'forward_incoming_sms',
  'incoming_held',
  'record_calls',
  'capabilities',
  'radio',
  'sim_cards',
  'sim_numbers',
  'sim_limits',
  'send_window',
  'limits',
  'quiet_hours',
  'send_jitter',
  'max_send_attempts',
  'paused_until',
  'paused_reason',
  'last_seen_at',
  'created_at',
  'updated_at',
] as const;

/** The members of `queue`, which GET /devices/{id} and PATCH .../settings add to the device. */
export const DEVICE_QUEUE_KEYS = ['in_flight', 'waiting', 'sent_last_minute', 'sent_last_hour', 'sent_last_day', 'blocked_by', 'paused_sims'] as const;

/** Why a device may take no task now (queue.blocked_by), besides null. */
export const BLOCKERS = [
  'cannot_send',
  'radio',
  'degraded',
  'paused',
  'quiet_hours',
  'jitter',
  'window',
  'per_minute',
  'per_hour',
  'per_day',
  'sim_per_day',
  'sim_per_month',
  'sim_recipients_per_month',
] as const;

/** The pacing of a newly registered device: 5 tasks in flight, 20 / 300 / 2000 sends a minute / hour / day. */
export const DEFAULT_PACING = {
  send_window: 5,
  limits: { per_minute: 20, per_hour: 300, per_day: 2000 },
  quiet_hours: null,
  paused_until: null,
  paused_reason: null,
} as const;

/** Every member of the Extended API SMS object (scheduling, reason and segments included), no more. */
export const SMS_KEYS = [
  'id',
  'device_id',
  'phone',
  'message',
  'status',
  'reason',
  'sent_at',
  'updated_at',
  'send_at',
  'valid_until',
  'priority',
  'sim_slot',
  'callback_id',
  'segments',
  'encoding',
] as const;

export function expectIsoTimestamp(value: unknown, label: string): void {
  expect(value, label).to.be.a('string');
  expect(new Date(value as string).toISOString(), `${label} is ISO 8601 UTC`).to.equal(value);
}

/**
 * The body is a device object with its pacing: exactly its keys, each of its type.
 * With `queue`, it is the detail view (GET /devices/{id}, PATCH .../settings), which adds `queue`.
 */
export function expectDevice(body: any, options: { queue?: boolean } = {}): void {
  expect(body).to.be.an('object');
  expect(Object.keys(body)).to.have.members([...DEVICE_KEYS, ...(options.queue ? ['queue'] : [])]);
  expect(body.id).to.match(UUID);
  expect(body.type).to.be.a('string').and.not.empty;
  expect(body.name).to.be.a('string').and.not.empty;
  expect(body.name_custom).to.be.a('string');
  for (const key of ['is_online', 'is_charging', 'can_send_sms', 'notify_low_battery', 'forward_incoming_sms', 'record_calls']) {
    expect(body[key], key).to.be.a('boolean');
  }
  // A device that has never reported its battery has no level yet (documented as null).
  if (body.battery_level !== null) {
    expect(Number.isInteger(body.battery_level), 'battery_level is an integer').to.equal(true);
    expect(body.battery_level).to.be.within(0, 100);
  }
  // Received SMS the phone keeps while forwarding is off; null until a heartbeat says.
  if (body.incoming_held !== null) {
    expect(Number.isInteger(body.incoming_held) && body.incoming_held >= 0, 'incoming_held is a count').to.equal(true);
  }
  // What the phone said it can do; null until a heartbeat says (an older app never does).
  if (body.capabilities !== null) {
    for (const key of ['mms', 'ussd', 'data_sms', 'call_recording']) expect(body.capabilities[key], `capabilities.${key}`).to.be.a('boolean');
  }
  // What the agent said of its radio; null until a heartbeat says (an older app never does).
  if (body.radio !== null) {
    expect(body.radio).to.have.all.keys('can_send', 'problem', 'detail', 'reported_at');
    expect(body.radio.can_send, 'radio.can_send').to.be.a('boolean');
  }
  if (body.signal_percent !== null) {
    expect(Number.isInteger(body.signal_percent), 'signal_percent is an integer').to.equal(true);
    expect(body.signal_percent).to.be.within(0, 100);
  }
  expect(body.selected_sim).to.be.oneOf([-2, -1, 0, 1, 2]);
  expect(body.sim_cards).to.be.an('array');
  for (const sim of body.sim_cards) {
    expect(sim).to.have.all.keys('index', 'name_operator', 'phone_number', 'phone_number_source');
    expect(Number.isInteger(sim.index) && sim.index >= 0).to.equal(true);
    expect(sim.name_operator).to.be.a('string');
    if (sim.phone_number === null) expect(sim.phone_number_source).to.equal(null);
    else expect(sim.phone_number).to.match(/^\+[1-9][0-9]{6,14}$/) && expect(sim.phone_number_source).to.be.oneOf(['owner', 'device']);
  }
  expect(body.sim_numbers).to.be.an('object');
  for (const [slot, phone] of Object.entries(body.sim_numbers)) {
    expect(slot).to.match(/^[0-7]$/);
    expect(phone).to.match(/^\+[1-9][0-9]{6,14}$/);
  }
  expect(body.sim_limits).to.be.an('object');
  for (const [slot, limits] of Object.entries(body.sim_limits as Record<string, object>)) {
    expect(slot).to.match(/^[0-7]$/);
    expect(limits).to.have.all.keys('per_day', 'per_month', 'recipients_per_month');
  }
  expectPacing(body);
  expectIsoTimestamp(body.created_at, 'created_at');
  expectIsoTimestamp(body.updated_at, 'updated_at');
  if (options.queue) expectQueue(body.queue);
}

/** send_window, limits, quiet_hours, paused_until and paused_reason of a device object. */
function expectPacing(body: any): void {
  expect(Number.isInteger(body.send_window), 'send_window is an integer').to.equal(true);
  expect(body.send_window, 'send_window').to.be.within(1, 50);
  expect(body.limits).to.be.an('object');
  expect(Object.keys(body.limits)).to.have.members(['per_minute', 'per_hour', 'per_day']);
  for (const [name, limit] of Object.entries(body.limits)) {
    if (limit === null) continue;
    expect(Number.isInteger(limit), `limits.${name} is an integer or null`).to.equal(true);
    expect(limit, `limits.${name}`).to.be.within(1, 1_000_000);
  }
  if (body.send_jitter !== null) {
    expect(Object.keys(body.send_jitter)).to.have.members(['min_seconds', 'max_seconds']);
    expect(body.send_jitter.min_seconds).to.be.at.most(body.send_jitter.max_seconds);
  }
  if (body.max_send_attempts !== null) expect(body.max_send_attempts).to.be.within(1, 5);
  if (body.quiet_hours !== null) {
    expect(body.quiet_hours).to.be.an('object');
    expect(Object.keys(body.quiet_hours)).to.have.members(['from', 'to', 'timezone']);
    expect(body.quiet_hours.from, 'quiet_hours.from').to.match(/^([01]\d|2[0-3]):[0-5]\d$/);
    expect(body.quiet_hours.to, 'quiet_hours.to').to.match(/^([01]\d|2[0-3]):[0-5]\d$/);
    expect(body.quiet_hours.timezone, 'quiet_hours.timezone').to.be.a('string').and.not.empty;
  }
  // A pause has a time and a reason, or neither.
  if (body.paused_until === null) {
    expect(body.paused_reason, 'paused_reason without paused_until').to.equal(null);
  } else {
    expectIsoTimestamp(body.paused_until, 'paused_until');
    expect(body.paused_reason, 'paused_reason').to.be.a('string').and.not.empty;
  }
}

/** The `queue` of the device detail view: counts of its work, and what blocks it. */
export function expectQueue(queue: any): void {
  expect(queue).to.be.an('object');
  expect(Object.keys(queue)).to.have.members([...DEVICE_QUEUE_KEYS]);
  expect(queue.paused_sims).to.be.an('array');
  for (const key of DEVICE_QUEUE_KEYS.filter((name) => name !== 'blocked_by' && name !== 'paused_sims')) {
    expect(Number.isInteger(queue[key]) && queue[key] >= 0, `queue.${key} is a count`).to.equal(true);
  }
  // Rolling windows: the last minute is part of the last hour, which is part of the last day.
  expect(queue.sent_last_minute, 'sent_last_minute <= sent_last_hour').to.be.at.most(queue.sent_last_hour);
  expect(queue.sent_last_hour, 'sent_last_hour <= sent_last_day').to.be.at.most(queue.sent_last_day);
  expect(queue.blocked_by).to.be.oneOf([null, ...BLOCKERS]);
}

/** The body is an SMS object: exactly its keys (plus `extra`), each of its type. */
export function expectSms(body: any, extra: string[] = []): void {
  expect(body).to.be.an('object');
  expect(Object.keys(body)).to.have.members([...SMS_KEYS, ...extra]);
  expect(body.id).to.match(UUID);
  if (body.device_id !== null) expect(body.device_id).to.match(UUID);
  expect(body.phone).to.match(/^\+\d{6,15}$/);
  expect(body.message).to.be.a('string');
  expect(body.status).to.be.oneOf(['pending', 'sent', 'delivered', 'undelivered', 'failed_send', 'failed_delivery']);
  // Only a failed SMS says why; a pending, sent or delivered one has no reason.
  if (['pending', 'sent', 'delivered'].includes(body.status)) expect(body.reason, 'reason').to.equal(null);
  else if (body.reason !== null) expect(body.reason, 'reason').to.be.a('string').and.not.empty;
  expectIsoTimestamp(body.sent_at, 'sent_at');
  expectIsoTimestamp(body.updated_at, 'updated_at');
  if (body.send_at !== null) expectIsoTimestamp(body.send_at, 'send_at');
  if (body.valid_until !== null) expectIsoTimestamp(body.valid_until, 'valid_until');
  expect(Number.isInteger(body.priority), 'priority is an integer').to.equal(true);
  expect(body.priority, 'priority').to.be.within(-100, 100);
  expect(Number.isInteger(body.segments), 'segments is an integer').to.equal(true);
  expect(body.segments, 'segments').to.be.at.least(1);
  expect(body.encoding).to.be.oneOf(['gsm7', 'ucs2']);
}

/**
 * The reply is the error `status` with code `code`, and its body is exactly
 * {"error": {"message": string, "code": string, "details"?: [{field, in?, message}]}}
 * with a code from the catalog that belongs to that status.
 */
export function expectError(reply: Reply, status: number, code?: string): void {
  expect(reply.status, `status (body: ${JSON.stringify(reply.body)})`).to.equal(status);
  expectErrorBody(reply);
  if (code !== undefined) expect(reply.body.error.code).to.equal(code);
}

/** The reply's body has the error shape, whatever its status; never a 500. */
export function expectErrorBody(reply: Reply): void {
  expect(reply.status, `never a 5xx for client input (body: ${JSON.stringify(reply.body)})`).to.be.within(400, 499);
  expect(reply.headers.get('content-type') ?? '').to.match(/^application\/json\b/);
  expect(reply.body).to.be.an('object');
  expect(Object.keys(reply.body)).to.deep.equal(['error']);
  const error = reply.body.error;
  expect(error).to.be.an('object');
  expect(Object.keys(error)).to.include.members(['message', 'code']);
  expect(['message', 'code', 'details']).to.include.members(Object.keys(error));
  expect(error.message).to.be.a('string').and.not.empty;
  expect(error.code).to.be.a('string');
  expect(Object.keys(ERROR_CATALOG), 'the code is in the catalog').to.include(error.code);
  expect(ERROR_CATALOG[error.code as keyof typeof ERROR_CATALOG].status, 'the code belongs to the status').to.equal(reply.status);
  if ('details' in error) {
    expect(error.details).to.be.an('array').and.not.empty;
    for (const detail of error.details) {
      expect(detail).to.be.an('object');
      expect(['field', 'in', 'message', 'code']).to.include.members(Object.keys(detail));
      if ('code' in detail) expect(Object.keys(ERROR_CATALOG), 'a detail\'s code is in the catalog').to.include(detail.code);
      expect(detail.field).to.be.a('string').and.not.empty;
      expect(detail.message).to.be.a('string').and.not.empty;
      if ('in' in detail) expect(detail.in).to.be.oneOf(['body', 'query', 'path', 'header']);
    }
  }
}

/** The fields the error's details name. */
export function detailFields(reply: Reply): string[] {
  return ((reply.body?.error?.details ?? []) as { field: string }[]).map((detail) => detail.field);
}
