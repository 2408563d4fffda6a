// Every answer of the gateway other than a 2xx becomes a GatewayError carrying the body's
// {"error": {"message", "code", "details"}}. A subclass per status a caller reacts to differently,
// so that `catch (e) { if (e instanceof NotFoundError) ... }` reads as the intent; `kind` is the
// same distinction as a string, for a switch.

/** One problem of a refused request: the field (a JSON pointer-like path) and what is wrong with it. */
export interface ErrorDetail {
  field?: string;
  message: string;
  code?: string;
  [extra: string]: unknown;
}

export type ErrorKind =
  | 'bad_request'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'unprocessable'
  | 'rate_limited'
  | 'unavailable'
  | 'server_error'
  | 'other';

export class GatewayError extends Error {
  override name = 'GatewayError';
  readonly kind: ErrorKind = 'other';

  constructor(
    /** The HTTP status of the answer. */
    readonly status: number,
    /** The gateway's error code, e.g. sms_not_found, validation_failed; "unknown" when the body had none. */
    readonly code: string,
    message: string,
    /** One entry per bad field (on 400 validation_failed, and per bad message of a bulk send). */
    readonly details: ErrorDetail[] = [],
    /** Seconds the gateway asks to wait before retrying (the Retry-After header), when it sent one. */
    readonly retryAfterSeconds: number | undefined = undefined,
    /** The body as received, for anything the fields above do not carry. */
    readonly body: unknown = undefined,
  ) {
    super(message);
  }
}

export class BadRequestError extends GatewayError {
  override name = 'BadRequestError';
  override readonly kind = 'bad_request';
}
export class UnauthorizedError extends GatewayError {
  override name = 'UnauthorizedError';
  override readonly kind = 'unauthorized';
}
export class ForbiddenError extends GatewayError {
  override name = 'ForbiddenError';
  override readonly kind = 'forbidden';
}
export class NotFoundError extends GatewayError {
  override name = 'NotFoundError';
  override readonly kind = 'not_found';
}
export class ConflictError extends GatewayError {
  override name = 'ConflictError';
  override readonly kind = 'conflict';
}
export class UnprocessableError extends GatewayError {
  override name = 'UnprocessableError';
  override readonly kind = 'unprocessable';
}
export class RateLimitedError extends GatewayError {
  override name = 'RateLimitedError';
  override readonly kind = 'rate_limited';
}
export class UnavailableError extends GatewayError {
  override name = 'UnavailableError';
  override readonly kind = 'unavailable';
}
export class ServerError extends GatewayError {
  override name = 'ServerError';
  override readonly kind = 'server_error';
}

type ErrorClass = new (...args: ConstructorParameters<typeof GatewayError>) => GatewayError;

const BY_STATUS: Record<number, ErrorClass> = {
  400: BadRequestError,
  401: UnauthorizedError,
  403: ForbiddenError,
  404: NotFoundError,
  409: ConflictError,
  422: UnprocessableError,
  429: RateLimitedError,
  503: UnavailableError,
};

/** The error for an answer that was not a 2xx, from its status, Retry-After header and body text. */
export function errorFromResponse(status: number, retryAfter: string | null, text: string): GatewayError {
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    // Not JSON (a proxy's error page): the text stays the body.
  }
  const error = (body as { error?: { message?: unknown; code?: unknown; details?: unknown } } | undefined)?.error;
  const code = typeof error?.code === 'string' ? error.code : 'unknown';
  const message = typeof error?.message === 'string' ? error.message : `the gateway answered ${status}`;
  const details = Array.isArray(error?.details) ? (error.details as ErrorDetail[]) : [];
  const seconds = retryAfter !== null && /^\d+$/.test(retryAfter.trim()) ? Number(retryAfter.trim()) : undefined;
  const Class = BY_STATUS[status] ?? (status >= 500 ? ServerError : GatewayError);
  return new Class(status, code, message, details, seconds, body);
}
