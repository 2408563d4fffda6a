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
  const response = await fetch(url(path, options.query), { method, headers, body, credentials: 'same-origin' });
  if (response.status === 204) return undefined as T;
  const text = await response.text();
  const parsed = text ? safeJson(text) : undefined;
  if (!response.ok) {
    const error = (parsed as { error?: { code?: string; message?: string; details?: ErrorDetail[] } } | undefined)?.error;
    if (response.status === 401 && !options.expectUnauthorized) onSessionLost?.();
    throw new ApiError(response.status, error?.code ?? `http_${response.status}`, error?.message ?? `The gateway answered ${response.status}.`, error?.details ?? []);
  }
  return parsed as T;
}

export const get = <T>(path: string, query?: RequestOptions['query']) => request<T>('GET', path, { query });
export const post = <T>(path: string, body?: unknown) => request<T>('POST', path, { body: body ?? {} });
export const patch = <T>(path: string, body: unknown) => request<T>('PATCH', path, { body });
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
