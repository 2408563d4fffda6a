// The error catalog: every error a client can see has a stable code listed here, one HTTP
// status, and a default message. Clients branch on `code`; `message` is for people.
// Body shape everywhere: {"error": {"message": "...", "code": "...", "details"?: [...]}}

export const ERROR_CATALOG = {
  invalid_json: { status: 400, message: 'request body is not valid JSON' },
  malformed_request: { status: 400, message: 'the request is not valid HTTP/1.1' },
  validation_failed: { status: 400, message: 'request is invalid' },
  message_too_long: { status: 400, message: 'message must not exceed 170 characters' },
  invalid_phone: { status: 400, message: 'phone is not a valid phone number' },
  invalid_id: { status: 400, message: 'id is malformed' },
  invalid_ciphertext: { status: 400, message: 'the value is not end-to-end ciphertext in the documented format (docs/encryption.md)' },
  invalid_data: { status: 400, message: 'data must be standard base64 of 1 to 133 bytes (one SMS beside its port header)' },
  unknown_callback: { status: 400, message: 'callback_id does not name a webhook of this account' },
  invalid_webhook_url: { status: 400, message: 'the webhook url may not be used' },
  unauthorized: { status: 401, message: 'a valid API key is required: Authorization: Bearer <key>' },
  invalid_device_credentials: { status: 401, message: 'a device id and token are required: Authorization: Basic base64(<device id>:<device token>)' },
  forbidden: { status: 403, message: 'the API key lacks the permission this operation needs' },
  csrf_failed: { status: 403, message: 'a request made with a session cookie must carry the session\'s X-CSRF-Token header' },
  account_disabled: { status: 403, message: 'the account is disabled; ask the instance administrator' },
  admin_only: { status: 403, message: 'only an instance administrator (a logged-in user with is_admin) may do this' },
  password_change_required: { status: 403, message: 'the password is a one-time password: change it (POST /api/ext/v1/session/password) first' },
  recording_disabled: { status: 403, message: 'the device may not upload recordings while its record_calls setting is off' },
  route_not_found: { status: 404, message: 'no such endpoint' },
  device_not_found: { status: 404, message: 'device not found' },
  sms_not_found: { status: 404, message: 'SMS not found' },
  webhook_not_found: { status: 404, message: 'webhook not found' },
  upstream_not_found: { status: 404, message: 'upstream not found' },
  delivery_not_found: { status: 404, message: 'delivery not found' },
  key_not_found: { status: 404, message: 'API key not found' },
  twilio_credential_not_found: { status: 404, message: 'Twilio credential not found' },
  user_not_found: { status: 404, message: 'user not found' },
  account_not_found: { status: 404, message: 'account not found' },
  call_not_found: { status: 404, message: 'call not found' },
  recording_not_found: { status: 404, message: 'the call has no recording' },
  smpp_credential_not_found: { status: 404, message: 'SMPP credential not found' },
  ussd_not_found: { status: 404, message: 'USSD session not found' },
  media_not_found: { status: 404, message: 'media not found' },
  mms_not_found: { status: 404, message: 'MMS not found' },
  mms_part_not_expected: { status: 404, message: 'the MMS report names no such part' },
  suppression_not_found: { status: 404, message: 'the number is not on the account\'s suppression list' },
  inbound_rule_not_found: { status: 404, message: 'inbound rule not found' },
  conversation_not_found: { status: 404, message: 'no conversation with this number' },
  contact_not_found: { status: 404, message: 'contact not found' },
  group_not_found: { status: 404, message: 'contact group not found' },
  template_not_found: { status: 404, message: 'template not found' },
  not_found: { status: 404, message: 'not found' },
  method_not_allowed: { status: 405, message: 'method not allowed on this endpoint' },
  device_cannot_send: { status: 409, message: 'the device is not allowed to send SMS (can_send_sms is false)' },
  conflict: { status: 409, message: 'conflict' },
  smpp_system_id_taken: { status: 409, message: 'a working SMPP credential already has this system_id' },
  email_taken: { status: 409, message: 'a user with this email already exists' },
  upstream_name_taken: { status: 409, message: 'the account already has an upstream of this name' },
  upstream_in_routes: { status: 409, message: "the account's routes name this upstream: take it out of the routes first" },
  last_owner: { status: 409, message: 'the account\'s last enabled owner cannot be removed, disabled or made a viewer' },
  cannot_change_self: { status: 409, message: 'a user cannot delete or disable themself' },
  already_taken: { status: 409, message: 'a phone has already taken this SMS; it can no longer be cancelled' },
  already_final: { status: 409, message: 'the SMS has already reached a final status' },
  device_not_capable: { status: 409, message: 'the device cannot do this, as its last heartbeat said' },
  no_capable_device: { status: 409, message: 'no device of this account can do this, as their heartbeats said' },
  device_offline: { status: 409, message: 'the device is offline: USSD needs the phone connected now (nothing is queued)' },
  ussd_busy: { status: 409, message: 'the device has a USSD session open; a phone runs one at a time: wait for it to complete or fail' },
  ussd_not_waiting: { status: 409, message: 'the USSD session is not waiting for a reply (its status is not waiting_reply)' },
  recipient_opted_out: { status: 422, message: 'the recipient has opted out (sent STOP or was added to the account\'s suppression list); the SMS was not sent' },
  idempotency_key_reused: { status: 422, message: 'this Idempotency-Key was used with a different request' },
  request_timeout: { status: 408, message: 'the request body did not arrive in time; the connection is closed' },
  payload_too_large: { status: 413, message: 'request body is too large' },
  not_audio: { status: 415, message: 'the body is not audio of an accepted type (AMR, 3GPP, MP4/M4A, AAC, MP3, Ogg, WAV)' },
  media_type_refused: { status: 415, message: 'the body is not media of an accepted type, or not the type its Content-Type names (docs/mms.md)' },
  mms_too_large: { status: 413, message: 'the MMS\'s parts together exceed MMS_MAX_MESSAGE_BYTES' },
  range_not_satisfiable: { status: 416, message: 'the Range does not overlap the recording; Content-Range gives its size' },
  headers_too_large: { status: 431, message: "the request's headers are too large" },
  unsupported_media_type: { status: 415, message: 'request body must be JSON (Content-Type: application/json)' },
  too_many_streams: { status: 429, message: 'this account has too many live event streams open; close one (a panel tab) and retry' },
  too_many_bulk_requests: { status: 429, message: 'this account has too many bulk sends under way; retry after the time Retry-After gives' },
  too_many_auth_failures: { status: 429, message: 'too many failed authentications from this address or with this credential; retry after the time Retry-After gives' },
  no_device_available: { status: 503, message: 'no online device can take this SMS now' },
  not_ready: { status: 503, message: 'the gateway is not ready' },
  overloaded: { status: 503, message: 'the gateway is at capacity; retry after the time Retry-After gives' },
  database_unavailable: { status: 503, message: 'the database is unreachable; retry after the time Retry-After gives' },
  not_implemented: { status: 501, message: 'method not implemented' },
  internal_error: { status: 500, message: 'internal error' },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOG;

export interface ErrorDetail {
  /** JSON pointer-ish path of the offending input, such as "/phone" or "query.limit". */
  field: string;
  /**
   * Which part of the request holds the field. Every detail the HTTP API answers names it; a
   * service that does not know how its input came may leave it out, and the route then names the
   * part that declares the field (src/http/detail-places.ts).
   */
  in?: 'body' | 'query' | 'path' | 'header';
  /** The message is for people; a detail whose refusal has a code of its own (recipient_opted_out) carries it here for programs. */
  code?: ErrorCode;
  message: string;
}

export class AppError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message?: string,
    readonly details?: ErrorDetail[],
  ) {
    super(message ?? ERROR_CATALOG[code].message);
    this.name = 'AppError';
    this.status = ERROR_CATALOG[code].status;
  }

  toBody(): { error: { message: string; code: ErrorCode; details?: ErrorDetail[] } } {
    return { error: { message: this.message, code: this.code, ...(this.details ? { details: this.details } : {}) } };
  }
}

/** A 400 about one field, the most common client error; `part` where the caller knows it. */
export function invalidField(field: string, message: string, code: ErrorCode = 'validation_failed', part?: ErrorDetail['in']): AppError {
  return new AppError(code, message, [{ field, ...(part ? { in: part } : {}), message }]);
}

/** The gateway cannot start or a command cannot run for a reason an operator must fix. */
/**
 * The row a lookup found, or the not-found error the API answers. Another account's row is not
 * found either: a lookup is always scoped to the account asking.
 */
export async function orNotFound<T>(lookup: Promise<T | undefined>, code: ErrorCode): Promise<T> {
  const row = await lookup;
  if (row === undefined || row === null) throw new AppError(code);
  return row;
}

export class StartupError extends Error {
  constructor(
    message: string,
    /** The system error code behind it (EADDRINUSE, ECONNREFUSED...), for callers that react to it. */
    readonly code?: string,
  ) {
    super(message);
    this.name = 'StartupError';
  }
}

/** Turns the usual environment failures (port taken, database down) into a StartupError. */
export function describeEnvironmentError(error: unknown, what: { port?: [name: string, port: number, host: string]; database?: string }): unknown {
  // Described already, by a step that knew better which variable it was about.
  if (error instanceof StartupError) return error;
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (what.port && code === 'EADDRINUSE') {
    const [name, port, host] = what.port;
    return new StartupError(`${name} ${port} is already in use on ${host}: stop what is using it or choose another ${name}`, code);
  }
  if (what.port && code === 'EACCES') {
    const [name, port] = what.port;
    return new StartupError(`${name} ${port} needs privileges this process does not have: choose a port above 1023`, code);
  }
  if (what.database !== undefined && (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'ETIMEDOUT' || code === 'EAI_AGAIN' || code === 'ECONNRESET')) {
    return new StartupError(`cannot reach the database at ${what.database} (${code}); check DATABASE_URL and that PostgreSQL is running`, code);
  }
  // PostgreSQL refusals: bad password, unknown role, unknown database.
  if (what.database !== undefined && (code === '28P01' || code === '28000' || code === '3D000')) {
    return new StartupError(`the database at ${what.database} refused the connection: ${(error as Error).message}; check DATABASE_URL`, code);
  }
  return error;
}
