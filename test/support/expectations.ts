// Shared expectations: the error body of spec 7.1 / the error model, and the device
// object of spec 2.1. Each checks the exact shape, so an extra or missing member fails a test.
import { expect } from 'chai';
import { ERROR_CATALOG } from '../../src/shared/errors.ts';
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

/** Every member of the Extended API device object (spec 2.1), no more. */
export const DEVICE_KEYS = [
  'id',
  'type',
  'name',
  'name_custom',
  'is_online',
  'is_charging',
  'battery_level',
  'can_send_sms',
  'selected_sim',
  'notify_low_battery',
  'forward_incoming_sms',
  'record_calls',
  'sim_cards',
  'created_at',
  'updated_at',
] as const;

/** Every member of the Extended API SMS object (spec 2.2), no more. */
export const SMS_KEYS = ['id', 'device_id', 'phone', 'message', 'status', 'sent_at', 'updated_at'] as const;

export function expectIsoTimestamp(value: unknown, label: string): void {
  expect(value, label).to.be.a('string');
  expect(new Date(value as string).toISOString(), `${label} is ISO 8601 UTC`).to.equal(value);
}

/** The body is a device object of spec 2.1: exactly its keys, each of its type. */
export function expectDevice(body: any): void {
  expect(body).to.be.an('object');
  expect(Object.keys(body)).to.have.members([...DEVICE_KEYS]);
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
  expect(body.selected_sim).to.be.oneOf([-2, -1, 0, 1, 2]);
  expect(body.sim_cards).to.be.an('array');
  for (const sim of body.sim_cards) {
    expect(sim).to.have.all.keys('index', 'name_operator');
    expect(Number.isInteger(sim.index) && sim.index >= 0).to.equal(true);
    expect(sim.name_operator).to.be.a('string');
  }
  expectIsoTimestamp(body.created_at, 'created_at');
  expectIsoTimestamp(body.updated_at, 'updated_at');
}

/** The body is an SMS object of spec 2.2: exactly its keys (plus `extra`), each of its type. */
export function expectSms(body: any, extra: string[] = []): void {
  expect(body).to.be.an('object');
  expect(Object.keys(body)).to.have.members([...SMS_KEYS, ...extra]);
  expect(body.id).to.match(UUID);
  if (body.device_id !== null) expect(body.device_id).to.match(UUID);
  expect(body.phone).to.match(/^\+\d{6,15}$/);
  expect(body.message).to.be.a('string');
  expect(body.status).to.be.oneOf(['pending', 'sent', 'delivered', 'undelivered', 'failed_send', 'failed_delivery']);
  expectIsoTimestamp(body.sent_at, 'sent_at');
  expectIsoTimestamp(body.updated_at, 'updated_at');
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
      expect(['field', 'in', 'message']).to.include.members(Object.keys(detail));
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
