// What the provider's answer to "create a Message" means for the SMS and for the link. Pure, so
// every status and Twilio error code is tested without a server.
//
// - 200/201: accepted; the Sid is the provider's id, num_segments the parts it took (1 if absent).
// - 429: later, after Retry-After; the link is throttled meanwhile.
// - 5xx: later (the provider's trouble, not the SMS's).
// - 401/403, or Twilio's 20003 (authenticate) whatever the status: never, and the link is down:
//   no SMS gets through with these credentials until they change.
// - Any other 4xx: never, with Twilio's code (21211 invalid To, 21610 unsubscribed, 21408 region
//   not enabled, 21614 not a mobile number...) or the HTTP status when there is none.
// - A redirect is not followed (a base URL is the API itself): never.
import { maskPhone } from '../../../../common/logger.ts';
import type { SubmitOutcome } from '../link.ts';

/**
 * What the answer says of the provider besides the SMS's outcome: it works (it took the request
 * and judged the SMS, which it does only after the credentials), it fails (5xx), it asks to slow
 * down, or it refuses the credentials.
 */
export type LinkEffect = 'working' | 'failing' | 'throttled' | 'credentials refused';

export interface ReadAnswer {
  outcome: SubmitOutcome;
  effect: LinkEffect;
}

/** Without Retry-After, a throttled provider is asked again after this. */
export const DEFAULT_RETRY_AFTER_MS = 1_000;
/** A Retry-After further away than this is read as this: routing decides whether to wait that long. */
const MAX_RETRY_AFTER_MS = 60 * 60 * 1000;
/** Twilio's code for a request whose credentials it refused. */
const AUTHENTICATE = '20003';
/** The detail kept of a provider's message: it is shown to the owner, not a place for a whole page. */
const MAX_DETAIL = 300;

export const CREDENTIALS_REFUSED = 'the provider refused the credentials (check accountSid and authToken)';

export function readAnswer(status: number, body: string, retryAfter: string | undefined, now = Date.now()): ReadAnswer {
  const json = parseJson(body);
  if (status === 200 || status === 201) {
    const sid = typeof json?.sid === 'string' && json.sid !== '' ? json.sid : undefined;
    if (!sid) {
      // Sent again it may go out twice; not sent again it is lost to tracking. The provider's
      // answer is broken either way, so routing tries elsewhere rather than here again.
      return { outcome: refused('never', 'invalid_answer', `the provider answered ${status} without a message sid`), effect: 'working' };
    }
    return { outcome: { accepted: true, providerIds: [sid], segments: segmentsOf(json?.num_segments) }, effect: 'working' };
  }
  const code = json?.code !== undefined && json.code !== null && String(json.code) !== '' ? String(json.code) : undefined;
  const said = typeof json?.message === 'string' ? json.message : undefined;
  if (status === 401 || status === 403 || code === AUTHENTICATE) {
    return { outcome: refused('never', code ?? `http_${status}`, CREDENTIALS_REFUSED), effect: 'credentials refused' };
  }
  if (status === 429) {
    const waitMs = retryAfterMs(retryAfter, now);
    return {
      outcome: { ...refused('later', code ?? 'http_429', detailOf(said, 'the provider asked to slow down')), retryAfterMs: waitMs },
      effect: 'throttled',
    };
  }
  if (status >= 500) return { outcome: refused('later', code ?? `http_${status}`, detailOf(said, `the provider answered ${status}`)), effect: 'failing' };
  if (status >= 300 && status < 400) {
    return { outcome: refused('never', `http_${status}`, `the provider answered a redirect (${status}), which is not followed: check baseUrl`), effect: 'working' };
  }
  return { outcome: refused('never', code ?? `http_${status}`, detailOf(said, `the provider refused the message (${status})`)), effect: 'working' };
}

function refused(retry: 'later' | 'never', code: string, detail: string): Extract<SubmitOutcome, { accepted: false }> {
  return { accepted: false, retry, code, detail };
}

/** Retry-After in seconds or as an HTTP date, in milliseconds from now. */
export function retryAfterMs(header: string | undefined, now = Date.now()): number {
  if (header === undefined || header.trim() === '') return DEFAULT_RETRY_AFTER_MS;
  const trimmed = header.trim();
  const ms = /^\d+$/.test(trimmed) ? Number(trimmed) * 1000 : Date.parse(trimmed) - now;
  if (Number.isNaN(ms)) return DEFAULT_RETRY_AFTER_MS;
  return Math.min(Math.max(ms, 0), MAX_RETRY_AFTER_MS);
}

function segmentsOf(value: unknown): number {
  const segments = typeof value === 'number' ? value : typeof value === 'string' ? Number(value) : NaN;
  return Number.isInteger(segments) && segments >= 1 ? segments : 1;
}

/**
 * The provider's own words when it gave some, else ours. Twilio quotes the number in some
 * messages ("The 'To' number +1555... is not a valid phone number"): masked, as everywhere a
 * number may end up in a log or a list.
 */
function detailOf(said: string | undefined, fallback: string): string {
  if (!said) return fallback;
  const masked = said.replace(/\+?\d[\d ().-]{5,}\d/g, (number) => maskPhone(number.replace(/[ ().-]/g, '')));
  return masked.length > MAX_DETAIL ? `${masked.slice(0, MAX_DETAIL - 1)}…` : masked;
}

function parseJson(body: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(body);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
