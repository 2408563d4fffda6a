// The Twilio-compatible API: /2010-04-01/Accounts/{AccountSid}/Messages, as Twilio's helper
// libraries call it (HTTP Basic with the AccountSid and auth token, form-encoded parameters), so
// code written for Twilio sends through the gateway unchanged. An SMS made here is an ordinary
// SMS (the create-SMS use case): pacing, failover, lists, webhooks and the panel all apply.
// Every answer, errors included, is in Twilio's shape (errors.ts).
import type Router from '@koa/router';
import type { Context } from 'koa';
import { randomUUID } from 'node:crypto';
import { AppError } from '../../common/errors.ts';
import type { AuthThrottle } from '../../common/auth-throttle.ts';
import type { Database } from '../../storage/database.ts';
import { addressOf } from '../../http/middleware/client-address.ts';
import { decodeCursor, encodeCursor } from '../../storage/paging.ts';
import { createSms, type CreateSmsParts } from '../../use-cases/create-sms.ts';
import { cancelSms, type CancelSmsParts } from '../../use-cases/cancel-sms.ts';
import type { MessageService } from '../../modules/messages/service.ts';
import type { DeviceService } from '../../modules/devices/service.ts';
import { authenticationFailed, fromAppError, invalidParameter, notFound, TwilioError } from '../../modules/twilio/errors.ts';
import { readForm, paramsOf } from './form-body.ts';
import { messagesUri, presentMessage, sentAt } from './message-view.ts';
import { newSmsOf } from './message-params.ts';
import { uuidOfMessageSid } from '../../modules/twilio/sids.ts';
import { twilioStatus } from '../../modules/twilio/statuses.ts';
import type { TwilioCaller, TwilioService } from '../../modules/twilio/service.ts';
import { API_VERSION } from '../../modules/twilio/callback-params.ts';
import { TWILIO_DOCUMENT_PATH, twilioDocument } from './openapi.ts';
import { PACKAGE_VERSION } from '../../common/package-info.ts';

export const TWILIO_PREFIX = `/${API_VERSION}/Accounts`;

export interface TwilioApiParts extends CreateSmsParts, CancelSmsParts {
  db: Database;
  twilio: TwilioService;
  messages: MessageService;
  devices: DeviceService;
  authThrottle: AuthThrottle;
  accountDisabled: (accountId: string) => Promise<boolean>;
  bodyLimitBytes: number;
  /** PUBLIC_URL, named as the server in the subset's OpenAPI document. */
  publicUrl?: string | undefined;
}

const MAX_PAGE_SIZE = 1000;
const DEFAULT_PAGE_SIZE = 50;

export function mountTwilioApi(router: Router, parts: TwilioApiParts): void {
  const serve = (handle: (ctx: Context, caller: TwilioCaller) => Promise<void>) => async (ctx: Context) => {
    try {
      const caller = await authenticate(ctx, parts);
      await handle(ctx, caller);
    } catch (error) {
      const twilioError = error instanceof TwilioError ? error : error instanceof AppError && error.status < 500 ? fromAppError(error) : undefined;
      if (!twilioError) throw error;
      ctx.status = twilioError.status;
      ctx.body = twilioError.toBody();
    }
  };
  const list = `${TWILIO_PREFIX}/:accountSid/Messages.json`;
  const one = `${TWILIO_PREFIX}/:accountSid/Messages/:file`;
  router.post(list, serve((ctx, caller) => createMessage(ctx, caller, parts)));
  router.get(list, serve((ctx, caller) => listMessages(ctx, caller, parts)));
  router.get(one, serve(async (ctx, caller) => {
    const sms = await parts.messages.get(caller.accountId, smsIdOf(ctx));
    ctx.body = presentMessage(caller.sid, sms, sentAt(await parts.messages.history(sms.id)));
  }));
  router.post(one, serve((ctx, caller) => updateMessage(ctx, caller, parts)));
  router.delete(one, serve(async (ctx, caller) => {
    await parts.messages.delete(caller.accountId, { uuid: smsIdOf(ctx) });
    ctx.status = 204;
  }));
  // What a generator or a checker reads; open like /api/ext/v1/openapi.json.
  const document = twilioDocument(PACKAGE_VERSION, parts.publicUrl);
  router.get(TWILIO_DOCUMENT_PATH, (ctx) => {
    ctx.body = document;
  });
}

/**
 * HTTP Basic with an AccountSid and its auth token; the AccountSid of the path must be the one
 * authenticated. Failures count in the auth throttle as wrong API keys do (per address and
 * AccountSid): past the limit the answer is 429 while the address waits.
 */
async function authenticate(ctx: Context, parts: TwilioApiParts): Promise<TwilioCaller> {
  const match = /^Basic[ \t]+([A-Za-z0-9+/=]+)[ \t]*$/i.exec(ctx.get('authorization'));
  const decoded = match ? Buffer.from(match[1]!, 'base64').toString('utf8') : '';
  const colon = decoded.indexOf(':');
  const sid = colon > 0 ? decoded.slice(0, colon) : '';
  const attempt = { channel: 'api_key' as const, address: addressOf(ctx), credential: sid.slice(0, 34) || undefined };
  refuseIfThrottled(ctx, parts.authThrottle.refusedFor(attempt));
  const caller = colon > 0 && sid === ctx.params.accountSid ? await parts.twilio.authenticate(sid, decoded.slice(colon + 1)) : undefined;
  if (!caller) {
    // No credential presented is not a guess: only a wrong one counts.
    if (match) refuseIfThrottled(ctx, parts.authThrottle.failed(attempt));
    ctx.set('WWW-Authenticate', 'Basic realm="Twilio API"');
    throw authenticationFailed();
  }
  if (await parts.accountDisabled(caller.accountId)) throw new TwilioError(401, 20005, 'Account is not active');
  ctx.state.accountId = caller.accountId;
  return caller;
}

function refuseIfThrottled(ctx: Context, waitMs: number): void {
  if (waitMs <= 0) return;
  ctx.set('Retry-After', String(Math.ceil(waitMs / 1000)));
  throw new TwilioError(429, 20429, 'Too Many Requests: too many failed authentications from this address');
}

function smsIdOf(ctx: Context): string {
  const file = String(ctx.params.file);
  const uuid = file.endsWith('.json') ? uuidOfMessageSid(file.slice(0, -'.json'.length)) : undefined;
  if (!uuid) throw notFound('The requested resource');
  return uuid;
}

async function createMessage(ctx: Context, caller: TwilioCaller, parts: TwilioApiParts): Promise<void> {
  const params = await readForm(ctx, parts.bodyLimitBytes);
  const input = await newSmsOf(params, caller, parts.devices);
  const statusCallback = params.get('StatusCallback');
  const callbackWebhook = statusCallback ? await parts.twilio.callbackWebhook(caller, checkedUrl(statusCallback)) : undefined;
  // Twilio's own idempotency header makes a retry answer the first message; without it every
  // request is its own key, so the SMS and its callback rows are written in one transaction.
  const token = ctx.get('i-twilio-idempotency-token');
  const result = await createSms(
    parts,
    caller.accountId,
    { key: token ? `twilio:${token}` : `twilio:${randomUUID()}`, operation: `POST ${messagesUri(caller.sid)}.json`, body: Object.fromEntries(params) },
    async () => [await parts.messages.prepare(caller.accountId, input)],
    async ([sms], trx) => {
      if (callbackWebhook) {
        if (!trx) throw new Error('a Twilio message is written in a transaction');
        await parts.twilio.track(trx, caller, callbackWebhook, [{ ...sms!, status: twilioStatus(sms!.status, null, sms!.send_at) }]);
      }
      return { status: 201, body: presentMessage(caller.sid, sms!, null) };
    },
  );
  ctx.status = result.status;
  ctx.body = result.body;
}

function checkedUrl(url: string): string {
  if (url.length > 2048 || !/^https?:\/\/[^\s]+$/i.test(url)) throw new TwilioError(400, 21609, 'Invalid StatusCallback: it must be an http or https URL');
  return url;
}

/** POST Messages/{Sid}.json: only Status=canceled, which cancels an SMS no phone has taken yet. */
async function updateMessage(ctx: Context, caller: TwilioCaller, parts: TwilioApiParts): Promise<void> {
  const id = smsIdOf(ctx);
  const params = await readForm(ctx, parts.bodyLimitBytes);
  const status = params.get('Status');
  if (status !== 'canceled') {
    throw invalidParameter(status === undefined ? 'Status is required: only Status=canceled is supported' : `Status ${status} is not supported: only canceled`);
  }
  const sms = await cancelSms(parts, parts.db, caller.accountId, id);
  ctx.body = presentMessage(caller.sid, sms, sentAt(await parts.messages.history(sms.id)));
}

export const BLANK_PAGE_TOKEN = 'PageToken is blank: leave it out for the first page, or follow next_page_uri (null on the last page)';

/**
 * GET Messages.json: newest first, To / From (a device id) / DateSent filters (on the date the SMS
 * was created: a date it was sent is not known before), PageSize up to 1000. Pages go forward by
 * PageToken (keyset paging); previous_page_uri is null.
 */
async function listMessages(ctx: Context, caller: TwilioCaller, parts: TwilioApiParts): Promise<void> {
  const query = paramsOf(new URLSearchParams(ctx.querystring));
  const pageSize = integerParam(query, 'PageSize', DEFAULT_PAGE_SIZE, 1, MAX_PAGE_SIZE);
  const pageNumber = integerParam(query, 'Page', 0, 0, 1_000_000);
  const token = query.get('PageToken');
  // A blank token is what a client sends that built the next request from a page with no next
  // one: read as the first page, it would go round the list forever. Twilio refuses it too.
  if (token !== undefined && token.trim() === '') throw invalidParameter(BLANK_PAGE_TOKEN);
  let cursor;
  try {
    cursor = token ? decodeCursor(token) : undefined;
  } catch {
    throw invalidParameter('PageToken is not one this API returned');
  }
  const filter: { phone?: string; deviceId?: string; from?: Date; to?: Date } = {};
  if (query.get('To')) filter.phone = query.get('To')!;
  if (query.get('From')) filter.deviceId = query.get('From')!;
  const day = dateParam(query, 'DateSent');
  if (day) Object.assign(filter, { from: day, to: new Date(day.getTime() + 86_400_000) });
  const after = dateParam(query, 'DateSent>');
  const before = dateParam(query, 'DateSent<');
  if (after) filter.from = after;
  if (before) filter.to = new Date(before.getTime() + 86_400_000);
  if (filter.deviceId && !/^[0-9a-f-]{36}$/i.test(filter.deviceId)) {
    ctx.body = page(caller, query, [], pageSize, pageNumber, null);
    return;
  }
  const rows = await parts.messages.list(caller.accountId, filter, pageSize, cursor);
  const kept = rows.slice(0, pageSize);
  const messages = [];
  for (const sms of kept) messages.push(presentMessage(caller.sid, sms, sentAt(await parts.messages.history(sms.id))));
  const next = rows.length > pageSize ? encodeCursor(kept[kept.length - 1]!) : null;
  ctx.body = page(caller, query, messages, pageSize, pageNumber, next);
}

function page(caller: TwilioCaller, query: Map<string, string>, messages: unknown[], pageSize: number, pageNumber: number, next: string | null) {
  const base = `${messagesUri(caller.sid)}.json`;
  const uriOf = (pageAt: number, pageToken: string | undefined) => {
    const search = new URLSearchParams();
    for (const name of ['To', 'From', 'DateSent', 'DateSent<', 'DateSent>']) if (query.has(name)) search.set(name, query.get(name)!);
    search.set('PageSize', String(pageSize));
    search.set('Page', String(pageAt));
    if (pageToken) search.set('PageToken', pageToken);
    return `${base}?${search.toString()}`;
  };
  return {
    messages,
    first_page_uri: uriOf(0, undefined),
    next_page_uri: next ? uriOf(pageNumber + 1, next) : null,
    previous_page_uri: null,
    uri: uriOf(pageNumber, query.get('PageToken')),
    page: pageNumber,
    page_size: pageSize,
    start: pageNumber * pageSize,
    end: pageNumber * pageSize + Math.max(0, messages.length - 1),
  };
}

function integerParam(query: Map<string, string>, name: string, fallback: number, min: number, max: number): number {
  const raw = query.get(name);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < min || value > max) throw invalidParameter(`${name} must be a whole number from ${min} to ${max}`);
  return value;
}

/** The days a date filter may name: the database holds years 1 to 9999, and a day's end is the next day. */
const LAST_DAY = Date.UTC(9999, 11, 30);

/** YYYY-MM-DD (as Twilio's filters take it) or a full ISO 8601 time, as a UTC date. */
function dateParam(query: Map<string, string>, name: string): Date | undefined {
  const raw = query.get(name);
  if (raw === undefined || raw === '') return undefined;
  const day = /^\d{4}-\d{2}-\d{2}/.exec(raw)?.[0];
  const date = day ? new Date(`${day}T00:00:00Z`) : new Date(NaN);
  if (Number.isNaN(date.getTime()) || date.getUTCFullYear() < 1 || date.getTime() > LAST_DAY) {
    throw invalidParameter(`${name} must be a date from 0001-01-01 to 9999-12-30, YYYY-MM-DD`);
  }
  return date;
}
