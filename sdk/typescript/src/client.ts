// The client of the Extended API (/api/ext/v1): one method per operation, named as the API names
// it, each answering the body the gateway sent, or throwing a GatewayError (errors.ts) for any
// answer that is not a 2xx. Built on the global fetch (Node 20+, browsers, Deno, Bun).
import { encrypt } from './end-to-end.js';
import { errorFromResponse } from './errors.js';
import { readServerSentEvents, type LiveEvent } from './events.js';
import { ApiKeys, Devices, SmppCredentials, TwilioCredentials, Webhooks } from './resources.js';
import type {
  BulkDryRunResult,
  BulkMessage,
  BulkResult,
  DevicePage,
  IncomingPage,
  IncomingSms,
  ListDevicesQuery,
  ListIncomingQuery,
  ListSmsQuery,
  SendSmsRequest,
  Sms,
  SmsDetail,
  SmsPage,
} from './types.js';

export interface ClientOptions {
  /** The gateway's address, e.g. https://sms.example.com (the /api/ext/v1 prefix is added). */
  baseUrl: string;
  /** An API key (Authorization: Bearer). */
  apiKey: string;
  /** Another fetch (a proxy agent, a test double); the global one by default. */
  fetch?: typeof fetch;
  /** Headers added to every request. */
  headers?: Record<string, string>;
}

export interface RequestOptions {
  /** Aborts the request. */
  signal?: AbortSignal;
}

export interface SendOptions extends RequestOptions {
  /**
   * Sent as Idempotency-Key: a retry with the same key within 24 hours replays the first answer
   * instead of sending again. Use one per message you mean to send (a UUID is usual).
   */
  idempotencyKey?: string;
}

/** The live event stream, open: iterate it with `for await`; close() ends it. */
export interface EventStream extends AsyncIterable<LiveEvent> {
  close(): void;
}

export interface BulkOptions extends SendOptions {
  /** Check every message and create nothing: the answer says, per message, whether it is valid. */
  dryRun?: boolean;
}

const PREFIX = '/api/ext/v1';

export class Client {
  private readonly baseUrl: string;
  private readonly apiKey: string;
  private readonly fetch: typeof fetch;
  private readonly headers: Record<string, string>;

  /** Webhooks: list, get, create, update, delete, rotateSecret. */
  readonly webhooks: Webhooks = new Webhooks(this);
  /** API keys: list, get, create, revoke. */
  readonly keys: ApiKeys = new ApiKeys(this);
  /** Devices: list, get, register, update (settings), replaceToken, delete. */
  readonly devices: Devices = new Devices(this);
  /** SMPP credentials: list, create, update, revoke. */
  readonly smppCredentials: SmppCredentials = new SmppCredentials(this);
  /** Twilio credentials: list, create, rotate, delete. */
  readonly twilioCredentials: TwilioCredentials = new TwilioCredentials(this);

  constructor(options: ClientOptions) {
    if (!options?.baseUrl) throw new TypeError('Client: baseUrl is required');
    if (!options.apiKey) throw new TypeError('Client: apiKey is required');
    this.baseUrl = options.baseUrl.replace(/\/+$/, '').replace(/\/api\/ext\/v1$/, '');
    this.apiKey = options.apiKey;
    this.fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
    this.headers = options.headers ?? {};
  }

  /** POST /sms: stores an SMS (status pending) for a phone to send. */
  sendSms(request: SendSmsRequest, options: SendOptions = {}): Promise<Sms> {
    return this.request('POST', '/sms', { json: request, ...options });
  }

  /**
   * POST /sms/encrypted: encrypts the recipient and the text with `passphrase` (which only you and
   * the account's phones know) and sends the ciphertext; the gateway can read neither. The answer
   * shows the ciphertext; decrypt() reads it back.
   */
  async sendEncryptedSms(request: SendSmsRequest, passphrase: string, options: SendOptions = {}): Promise<Sms> {
    const { phone, message, ...rest } = request;
    const sealed = { ...rest, phone: await encrypt(phone, passphrase), message: await encrypt(message, passphrase) };
    return this.request('POST', '/sms/encrypted', { json: sealed, ...options });
  }

  /** GET /sms/{id}: the SMS and every status it went through, oldest first. */
  getSms(id: string, options: RequestOptions = {}): Promise<SmsDetail> {
    return this.request('GET', `/sms/${encodeURIComponent(id)}`, options);
  }

  /** GET /sms: one page of stored SMS, newest first; pass next_cursor as cursor for the next. */
  listSms(query: Partial<ListSmsQuery> = {}, options: RequestOptions = {}): Promise<SmsPage> {
    return this.request('GET', '/sms', { query, ...options });
  }

  /** Every SMS matching the filters, newest first, reading page after page as the loop asks. */
  allSms(query: Partial<Omit<ListSmsQuery, 'cursor'>> = {}, options: RequestOptions = {}): AsyncGenerator<Sms> {
    return this.pages<Sms>((cursor) => this.listSms({ ...query, ...(cursor ? { cursor } : {}) }, options));
  }

  /** POST /sms/{id}/cancel: cancels an SMS no phone has taken yet (ConflictError once one has). */
  cancelSms(id: string, options: RequestOptions = {}): Promise<Sms> {
    return this.request('POST', `/sms/${encodeURIComponent(id)}/cancel`, options);
  }

  /**
   * POST /sms/bulk: up to 1,000 SMS in one call, all created or none. Takes the messages, or the
   * text of a CSV with a header row (phone, message, and optionally device_id, sim_slot,
   * callback_id, send_at, valid_until, ttl, priority). A bad message fails the call with a BadRequestError whose details
   * name each bad message (field messages.{index}...).
   */
  sendBulk(messages: BulkMessage[] | string, options?: BulkOptions & { dryRun?: false }): Promise<BulkResult>;
  sendBulk(messages: BulkMessage[] | string, options: BulkOptions & { dryRun: true }): Promise<BulkDryRunResult>;
  sendBulk(messages: BulkMessage[] | string, options: BulkOptions = {}): Promise<BulkResult | BulkDryRunResult> {
    const { dryRun, ...rest } = options;
    const query = dryRun ? { dry_run: 'true' } : {};
    if (typeof messages === 'string') return this.request('POST', '/sms/bulk', { csv: messages, query, ...rest });
    return this.request('POST', '/sms/bulk', { json: { messages }, query, ...rest });
  }

  /** GET /devices: one page of the account's devices (the same as devices.list()). */
  listDevices(query: Partial<ListDevicesQuery> = {}, options: RequestOptions = {}): Promise<DevicePage> {
    return this.request('GET', '/devices', { query, ...options });
  }

  /** GET /incoming: one page of SMS the account's phones received, newest first. */
  listIncoming(query: Partial<ListIncomingQuery> = {}, options: RequestOptions = {}): Promise<IncomingPage> {
    return this.request('GET', '/incoming', { query, ...options });
  }

  /** Every incoming SMS, newest first, page after page. */
  allIncoming(query: Partial<Omit<ListIncomingQuery, 'cursor'>> = {}, options: RequestOptions = {}): AsyncGenerator<IncomingSms> {
    return this.pages<IncomingSms>((cursor) => this.listIncoming({ ...query, ...(cursor ? { cursor } : {}) }, options));
  }

  /**
   * GET /events: the account's changes as they happen (sms.status, device.presence, sms.received).
   * Resolves once the gateway has opened the stream (from then on no change is missed); iterate it
   * with `for await`, and close() it (or abort `signal`) to stop. The iteration ends when the
   * connection does; events are not replayed after a reconnect, so reload what you show then.
   */
  async events(options: RequestOptions = {}): Promise<EventStream> {
    const abort = new AbortController();
    const forward = () => abort.abort();
    if (options.signal?.aborted) abort.abort();
    options.signal?.addEventListener('abort', forward, { once: true });
    const response = await this.send('GET', '/events', { accept: 'text/event-stream' }, undefined, abort.signal);
    if (!response.ok) throw errorFromResponse(response.status, response.headers.get('retry-after'), await response.text());
    const body = response.body;
    return {
      async *[Symbol.asyncIterator]() {
        if (!body) return;
        try {
          yield* readServerSentEvents(body);
        } catch (error) {
          // Closing the stream ends the iteration; any other failure is the caller's to see.
          if (!abort.signal.aborted) throw error;
        }
      },
      close() {
        options.signal?.removeEventListener('abort', forward);
        abort.abort();
      },
    };
  }

  /** Any other operation of the Extended API: `path` below /api/ext/v1, e.g. '/webhooks'. */
  async request<T>(
    method: string,
    path: string,
    options: { json?: unknown; csv?: string; query?: object; idempotencyKey?: string; signal?: AbortSignal } = {},
  ): Promise<T> {
    const headers: Record<string, string> = { accept: 'application/json' };
    let body: string | undefined;
    if (options.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.json);
    } else if (options.csv !== undefined) {
      headers['content-type'] = 'text/csv';
      body = options.csv;
    }
    if (options.idempotencyKey !== undefined) headers['idempotency-key'] = options.idempotencyKey;
    const response = await this.send(method, path + queryString(options.query), headers, body, options.signal);
    const text = await response.text();
    if (!response.ok) throw errorFromResponse(response.status, response.headers.get('retry-after'), text);
    return (text ? JSON.parse(text) : undefined) as T;
  }

  private send(method: string, path: string, headers: Record<string, string>, body: string | undefined, signal: AbortSignal | undefined): Promise<Response> {
    return this.fetch(this.baseUrl + PREFIX + path, {
      method,
      headers: { ...this.headers, ...headers, authorization: `Bearer ${this.apiKey}` },
      ...(body !== undefined ? { body } : {}),
      ...(signal ? { signal } : {}),
    });
  }

  private async *pages<T>(read: (cursor: string | undefined) => Promise<{ data: T[]; next_cursor: string | null }>): AsyncGenerator<T> {
    let cursor: string | undefined;
    do {
      const page = await read(cursor);
      yield* page.data;
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
  }
}

function queryString(query: object | undefined): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    params.set(name, String(value));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}
