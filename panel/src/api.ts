// Every call the panel makes goes through here: the gateway's own Extended API, authorised by the
// session cookie, with the CSRF token on each change. Errors come back as ApiError carrying the
// API's code, message and per-field details, so a form can show them beside its fields.
export const API = '/api/ext/v1';

export interface ErrorDetail {
  field: string;
  message: string;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: ErrorDetail[] = [],
  ) {
    super(message);
  }

  /** The message for one field (`body.phone` and `phone` both match "phone"). */
  forField(field: string): string | undefined {
    return this.details.find((detail) => detail.field === field || detail.field.endsWith(`.${field}`))?.message;
  }
}

let csrfToken: string | undefined;
let onSessionLost: (() => void) | undefined;

/** The session's CSRF token, sent back as X-CSRF-Token on every state change. */
export function useCsrfToken(token: string | undefined): void {
  csrfToken = token;
}

/** Called when the API answers 401: the session ended (idle, expired, logged out elsewhere). */
export function whenSessionLost(handler: () => void): void {
  onSessionLost = handler;
}

export interface RequestOptions {
  body?: unknown;
  /** Sent as is with this content type instead of JSON (a CSV upload). */
  raw?: { content: string; type: string };
  query?: Record<string, string | number | boolean | undefined | null>;
  /** Answers 401 without ending the panel's session (the login form itself). */
  expectUnauthorized?: boolean;
}

export async function request<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  let body: string | undefined;
  if (options.raw) {
    headers['content-type'] = options.raw.type;
    body = options.raw.content;
  } else if (options.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.body);
  }
  if (method !== 'GET' && method !== 'HEAD' && csrfToken) headers['x-csrf-token'] = csrfToken;
  for (let attempt = 1; ; attempt++) {
    const response = await send(url(path, options.query), { method, headers, body, credentials: 'same-origin' });
    if (response.status === 204) return undefined as T;
    const text = await response.text();
    const parsed = text ? safeJson(text) : undefined;
    if (response.ok) return parsed as T;
    const error = (parsed as { error?: { code?: string; message?: string; details?: ErrorDetail[] } } | undefined)?.error;
    const code = error?.code ?? `http_${response.status}`;
    // A busy gateway turned the request away before doing anything: asking again a moment later
    // is what its Retry-After says, and a person should not have to reload the page for it.
    if (code === 'overloaded' && attempt < BUSY_ATTEMPTS) {
      await pause(retryAfterMs(response.headers.get('retry-after')));
      continue;
    }
    if (response.status === 401 && !options.expectUnauthorized) onSessionLost?.();
    throw new ApiError(response.status, code, FOR_PEOPLE[code] ?? error?.message ?? `The gateway answered ${response.status}.`, error?.details ?? []);
  }
}

/** Tries of a request a busy gateway (503 overloaded) turns away before the panel says so. */
const BUSY_ATTEMPTS = 4;
/** The longest the panel waits between them, whatever Retry-After asks. */
const BUSY_WAIT_MAX_MS = 5_000;

/**
 * Answers whose message is written for a program ("retry after the time Retry-After gives"),
 * said for the person in front of the panel instead.
 */
const FOR_PEOPLE: Record<string, string> = {
  overloaded: 'The gateway is busy right now. Try again in a moment.',
  database_unavailable: 'The gateway cannot reach its database right now. Try again in a moment.',
};

/** fetch, with a failed connection said in words rather than as the browser's TypeError. */
async function send(address: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(address, init);
  } catch {
    throw new ApiError(0, 'network', 'The gateway could not be reached. Check the connection, then try again.');
  }
}

function retryAfterMs(header: string | null): number {
  const seconds = Number(header);
  return Number.isFinite(seconds) && seconds > 0 ? Math.min(seconds * 1000, BUSY_WAIT_MAX_MS) : 1000;
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export const get = <T>(path: string, query?: RequestOptions['query']) => request<T>('GET', path, { query });
export const post = <T>(path: string, body?: unknown) => request<T>('POST', path, { body: body ?? {} });
export const patch = <T>(path: string, body: unknown) => request<T>('PATCH', path, { body });
export const put = <T>(path: string, body: unknown) => request<T>('PUT', path, { body });
export const del = <T = void>(path: string) => request<T>('DELETE', path);

function url(path: string, query: RequestOptions['query']): string {
  const full = path.startsWith(API) ? path : `${API}${path}`;
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value !== undefined && value !== null && value !== '') params.set(key, String(value));
  }
  const search = params.toString();
  return search ? `${full}?${search}` : full;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** A page of a cursor-paged list. */
export interface Page<T> {
  data: T[];
  next_cursor: string | null;
}
