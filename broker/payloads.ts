// Schemas of what devices publish. Every payload is validated before it can touch the database;
// anything else is rejected with a reason that is logged and counted.
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { compile, explain } from '../src/common/schema-validation.ts';
import { findNul } from '../src/common/nul.ts';
import { CALL_DIRECTIONS } from '../src/modules/calls/schema.ts';
import { UssdReport } from '../src/modules/ussd/device-protocol.ts';
import { parseEncrypted } from '../src/common/end-to-end.ts';
import { DeviceCapabilities } from '../src/modules/devices/capabilities.ts';

/** A sender in clear is a number or a name; only ciphertext of one is longer. */
export const PLAIN_PHONE_MAX_CHARACTERS = 64;
/** Ciphertext of a sender of up to 64 characters fits. */
const ENCRYPTED_PHONE_MAX_CHARACTERS = 256;
import { ERROR_CODE_PATTERN } from '../src/modules/delivery/send-errors.ts';

/**
 * Larger device payloads are refused unread. The largest legitimate one is an incoming SMS of
 * 10,000 characters: as JSON, even if every character were escaped as \uXXXX, it stays under this.
 */
export const MAX_DEVICE_PAYLOAD_BYTES = 64 * 1024;

/** The most received SMS a heartbeat may say its phone keeps (the agent keeps at most 10,000). */
export const MAX_INCOMING_HELD = 100_000;

export const REPORTED_STATUSES = ['processing', 'sent', 'delivered', 'undelivered', 'failed_send', 'failed_delivery'] as const;
const ReportedStatus = Type.Union(REPORTED_STATUSES.map((status) => Type.Literal(status)));

export const StatusReport = Type.Object(
  {
    sms_id: Type.String({ format: 'uuid' }),
    status: ReportedStatus,
    /** Why a send or delivery failed, as the phone knows it (an error code or text). */
    error: Type.Optional(Type.String({ maxLength: 500 })),
    /**
     * Why a send failed, machine-readable (docs/delivery.md): the codes of RETRYABLE_ERROR_CODES
     * (src/modules/delivery/send-errors.ts) are retried on another SIM or phone; others are not.
     */
    error_code: Type.Optional(Type.String({ pattern: ERROR_CODE_PATTERN })),
    /** The SIM slot the phone sent it from, once it knows (the legacy to_sim shows it). */
    sim_slot: Type.Optional(Type.Integer({ minimum: 0, maximum: 7 })),
  },
  { additionalProperties: false },
);

export const Heartbeat = Type.Object(
  {
    battery_level: Type.Integer({ minimum: 0, maximum: 100 }),
    is_charging: Type.Boolean(),
    /** The radio's signal strength, percent; absent when the device cannot tell. */
    signal_percent: Type.Optional(Type.Integer({ minimum: 0, maximum: 100 })),
    sim_cards: Type.Array(
      Type.Object(
        {
          index: Type.Integer({ minimum: 0, maximum: 7 }),
          name_operator: Type.String({ maxLength: 100 }),
          /**
           * The SIM's own number, when the phone knows it. Any text up to this length passes the
           * schema; one that is no E.164 number is dropped for that SIM alone (heartbeat-numbers.ts).
           */
          phone_number: Type.Optional(Type.String({ maxLength: PLAIN_PHONE_MAX_CHARACTERS })),
        },
        { additionalProperties: false },
      ),
      { maxItems: 8 },
    ),
    type: Type.Optional(Type.String({ minLength: 1, maxLength: 50 })),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    app_version: Type.Optional(Type.String({ maxLength: 50 })),
    /** Received SMS the phone keeps while forwarding is off (forward_incoming_sms); absent: an agent that does not say. */
    incoming_held: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_INCOMING_HELD })),
    /** What the device can be given (MMS, USSD, ...); absent: an app that does not say, taken to do everything. */
    capabilities: Type.Optional(DeviceCapabilities),
    /**
     * What the agent found of its radio (src/modules/devices/radio.ts RadioHealth). Checked on its
     * own (heartbeat-radio.ts): a malformed one is dropped and the rest of the heartbeat applies.
     */
    radio: Type.Optional(Type.Unknown()),
  },
  { additionalProperties: false },
);

export const IncomingSms = Type.Object(
  {
    id: Type.String({ minLength: 1, maxLength: 100, description: "the device's own id for the message" }),
    phone: Type.String({
      minLength: 1,
      maxLength: ENCRYPTED_PHONE_MAX_CHARACTERS,
      description: `sender, at most ${PLAIN_PHONE_MAX_CHARACTERS} characters; ciphertext when is_encrypted`,
    }),
    message: Type.String({ maxLength: 10_000 }),
    received_at: Type.String({ format: 'date-time' }),
    sim_slot: Type.Optional(Type.Integer({ minimum: 0, maximum: 7 })),
    is_encrypted: Type.Optional(Type.Boolean({ description: 'phone and message are end-to-end ciphertext (docs/encryption.md)' })),
  },
  { additionalProperties: false },
);

/** What the schema cannot say: a sender in clear is short, and ciphertext is in the format. */
export function incomingSmsProblem(sms: IncomingSms): string | undefined {
  if (!sms.is_encrypted) {
    return sms.phone.length > PLAIN_PHONE_MAX_CHARACTERS ? `invalid payload: phone must be at most ${PLAIN_PHONE_MAX_CHARACTERS} characters` : undefined;
  }
  for (const field of ['phone', 'message'] as const) {
    const problem = parseEncrypted(sms[field]);
    if (typeof problem === 'string') return `invalid payload: ${field} ${problem}`;
  }
  return undefined;
}

/** A call the phone made, took or missed (the call log; a recording is uploaded over HTTP). */
export const CallReport = Type.Object(
  {
    id: Type.String({ minLength: 1, maxLength: 64, description: "the phone's own id for the call; a repeat of it is stored once" }),
    direction: Type.Union(CALL_DIRECTIONS.map((direction) => Type.Literal(direction))),
    phone: Type.String({ minLength: 1, maxLength: 64, description: 'the other party, as the phone shows it' }),
    sim_slot: Type.Optional(Type.Integer({ minimum: 0, maximum: 7 })),
    started_at: Type.String({ format: 'date-time', description: 'when it started (rang, for a missed call)' }),
    // A week bounds any real call and keeps the value far inside the column's int.
    duration_seconds: Type.Optional(Type.Integer({ minimum: 0, maximum: 7 * 24 * 3600, description: 'talk time; 0 or absent for a missed call' })),
  },
  { additionalProperties: false },
);

/** An id that travels in an HTTP path (the part uploads): letters, digits and . _ ~ - only. */
const PathSafeId = (description: string) => Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9._~-]+$', description });

/** An MMS the phone received (its parts' bytes are uploaded over HTTP after). */
export const MmsReport = Type.Object(
  {
    id: PathSafeId("the phone's own id for the MMS; a repeat of it is stored once"),
    phone: Type.String({ minLength: 1, maxLength: 64, description: 'sender' }),
    recipients: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: 20, description: 'the other recipients of a group MMS' })),
    subject: Type.Optional(Type.String({ maxLength: 200 })),
    message: Type.Optional(Type.String({ maxLength: 10_000, description: 'the text part' })),
    received_at: Type.String({ format: 'date-time' }),
    sim_slot: Type.Optional(Type.Integer({ minimum: 0, maximum: 7 })),
    parts: Type.Array(
      Type.Object(
        {
          id: PathSafeId("the part's id, unique in this MMS: the upload's path names it"),
          content_type: Type.String({ minLength: 1, maxLength: 100 }),
          size: Type.Integer({ minimum: 0, maximum: 2 ** 31 - 1, description: 'bytes, as the phone has them' }),
        },
        { additionalProperties: false },
      ),
      { maxItems: 10 },
    ),
  },
  { additionalProperties: false },
);

export const PRESENCE_STATES = ['online', 'offline'] as const;

export type StatusReport = Static<typeof StatusReport>;
export type Heartbeat = Static<typeof Heartbeat>;
export type IncomingSms = Static<typeof IncomingSms>;
export type CallReport = Static<typeof CallReport>;
export type MmsReport = Static<typeof MmsReport>;

export type Decoded<T> = { ok: true; value: T } | { ok: false; reason: string };

function decoder<S extends TSchema>(schema: S) {
  const validate = compile(schema, 'body');
  // A payload is decoded when the broker decides whether to take it (acl.ts) and again when it is
  // consumed (device-messages.ts), the same Buffer both times: parsed and checked once.
  const decoded = new WeakMap<Buffer, Decoded<Static<S>>>();
  return (payload: Buffer): Decoded<Static<S>> => {
    let result = decoded.get(payload);
    if (result === undefined) decoded.set(payload, (result = decode(payload)));
    return result;
  };

  function decode(payload: Buffer): Decoded<Static<S>> {
    if (payload.length > MAX_DEVICE_PAYLOAD_BYTES) return { ok: false, reason: 'payload too large' };
    let value: unknown;
    try {
      value = JSON.parse(payload.toString('utf8'));
    } catch {
      return { ok: false, reason: 'malformed JSON' };
    }
    const nul = findNul(value);
    if (nul) return { ok: false, reason: `invalid payload: ${nul} holds a NUL character` };
    if (!validate(value)) {
      // In words, as the HTTP API says it ("status must be one of: processing, sent, ..."), not Ajv's.
      const first = explain(validate.errors ?? [], 'body')[0];
      return { ok: false, reason: `invalid payload: ${first?.message ?? 'does not match its schema'}` };
    }
    return { ok: true, value: value as Static<S> };
  }
}

export const decodeStatusReport = decoder(StatusReport);
export const decodeHeartbeat = decoder(Heartbeat);
export const decodeIncomingSms = decoder(IncomingSms);
export const decodeCallReport = decoder(CallReport);
/** The network's answer to a USSD request, or why there is none (the schema is the USSD module's). */
export const decodeUssdReport = decoder(UssdReport);
const decodeMmsShape = decoder(MmsReport);
export function decodeMmsReport(payload: Buffer): Decoded<MmsReport> {
  const decoded = decodeMmsShape(payload);
  if (decoded.ok && new Set(decoded.value.parts.map((part) => part.id)).size !== decoded.value.parts.length) {
    return { ok: false, reason: 'invalid payload: two parts have the same id' };
  }
  return decoded;
}

export function decodePresence(payload: Buffer): Decoded<(typeof PRESENCE_STATES)[number]> {
  const text = payload.toString('utf8').trim();
  return (PRESENCE_STATES as readonly string[]).includes(text)
    ? { ok: true, value: text as (typeof PRESENCE_STATES)[number] }
    : { ok: false, reason: 'presence must be "online" or "offline"' };
}
