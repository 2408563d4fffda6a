// Verifying a webhook delivery. The gateway signs every delivery the Standard Webhooks way:
//   webhook-id: <delivery id>   webhook-timestamp: <Unix seconds>
//   webhook-signature: v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>"> (space-separated, one per live secret)
// with the HMAC key the base64 part of the secret "whsec_<base64>". A receiver checks the signature
// over the raw body exactly as received (parse it only afterwards) and refuses a timestamp far
// from now, so that a captured delivery cannot be replayed later.
import { createHmac, timingSafeEqual } from 'node:crypto';

/** How far a delivery's timestamp may be from now, either way; the Standard Webhooks default. */
export const DEFAULT_TOLERANCE_SECONDS = 5 * 60;

export class WebhookVerificationError extends Error {
  override name = 'WebhookVerificationError';
}

/** Headers as Node's IncomingMessage, fetch's Headers or a plain object carry them. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export interface VerifyOptions {
  /** Seconds a timestamp may be from now; 300 by default. */
  toleranceSeconds?: number;
  /** "Now" in milliseconds, for tests. */
  now?: number;
}

/** A verified webhook event: the envelope the gateway sends. */
export interface WebhookEvent<Data = Record<string, unknown>> {
  id: string;
  type: string;
  timestamp: string;
  account_id: string;
  data: Data;
}

/**
 * Checks a delivery's signature and timestamp with the webhook's secret and returns the parsed
 * event; throws WebhookVerificationError when it does not hold. `body` is the raw body as
 * received (a string or bytes), never the body parsed and serialised again.
 */
export function verifyWebhook<Data = Record<string, unknown>>(
  secret: string,
  headers: WebhookHeaders,
  body: string | Uint8Array,
  options: VerifyOptions = {},
): WebhookEvent<Data> {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures) throw new WebhookVerificationError('missing webhook-id, webhook-timestamp or webhook-signature header');
  if (!/^\d{1,15}$/.test(timestamp)) throw new WebhookVerificationError('webhook-timestamp is not a Unix time in seconds');
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const now = Math.floor((options.now ?? Date.now()) / 1000);
  if (Math.abs(now - Number(timestamp)) > tolerance) throw new WebhookVerificationError('webhook-timestamp is too far from now');
  const text = typeof body === 'string' ? body : Buffer.from(body).toString('utf8');
  const expected = sign(secret, id, timestamp, text);
  const matches = signatures
    .split(' ')
    .filter((entry) => entry.startsWith('v1,'))
    .some((entry) => {
      const given = Buffer.from(entry.slice(3), 'base64');
      return given.length === expected.length && timingSafeEqual(given, expected);
    });
  if (!matches) throw new WebhookVerificationError('no signature matches the secret');
  try {
    return JSON.parse(text) as WebhookEvent<Data>;
  } catch {
    throw new WebhookVerificationError('the body is not JSON');
  }
}

/** The signature header value the gateway would send for this id, timestamp and body: for tests of a receiver. */
export function signWebhook(secret: string, id: string, timestamp: number, body: string): string {
  return `v1,${sign(secret, id, String(timestamp), body).toString('base64')}`;
}

function sign(secret: string, id: string, timestamp: string, body: string): Buffer {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  return createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest();
}

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(record).find((candidate) => candidate.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return Array.isArray(value) ? value[0] : value;
}
