// Request bodies are JSON. A body of another type is a 415, malformed JSON a 400,
// an oversized body a 413: each with the catalog's error body, never a 500. Bodies are read
// after authentication, so an anonymous caller cannot make the server parse anything. While a
// body is still arriving the request gives its admission place back (whileClientSends): a client
// that sends slowly holds no place another tenant needs; the body deadline (body-deadline.ts)
// bounds how long it may take.
import type { Context } from 'koa';
import { bodyParser } from '@koa/bodyparser';
import { AppError } from '../../common/errors.ts';
import { OVERLOAD_RETRY_AFTER_SECONDS, OverloadedOnResume, whileClientSends } from './admission.ts';

export type BodyReader = (ctx: Context) => Promise<unknown>;

export function createBodyReader(limitBytes: number): BodyReader {
  const parse = bodyParser({
    enableTypes: ['json'],
    jsonLimit: limitBytes,
    jsonStrict: true,
    parsedMethods: ['POST', 'PUT', 'PATCH', 'DELETE'],
    onError(error) {
      throw toAppError(error as Error & { status?: number; type?: string }, limitBytes);
    },
  });
  return async function readJsonBody(ctx: Context): Promise<unknown> {
    if (!hasBody(ctx)) return undefined;
    if (!ctx.is('application/json', '+json')) throw new AppError('unsupported_media_type');
    await receive(ctx, () => parse(ctx, async () => {}));
    return (ctx.request as { body?: unknown }).body;
  };
}

/**
 * Reads a text/csv body as a string (routes that take CSV: POST /sms/bulk). Anything else is
 * handed to `orJson`, so the same route takes JSON too.
 */
export function createCsvReader(limitBytes: number, orJson: BodyReader): (ctx: Context) => Promise<{ csv: string } | { json: unknown }> {
  const parse = bodyParser({
    enableTypes: ['text'],
    extendTypes: { text: ['text/csv'] },
    textLimit: limitBytes,
    parsedMethods: ['POST'],
    onError(error) {
      throw toAppError(error as Error & { status?: number; type?: string }, limitBytes);
    },
  });
  return async (ctx) => {
    if (!ctx.is('text/csv')) return { json: await orJson(ctx) };
    if (!hasBody(ctx)) return { csv: '' };
    await receive(ctx, () => parse(ctx, async () => {}));
    const body = (ctx.request as { body?: unknown }).body;
    return { csv: typeof body === 'string' ? body : '' };
  };
}

/** Reads the body without holding an admission place while it arrives; 503 with Retry-After if none is free after. */
async function receive(ctx: Context, read: () => Promise<unknown>): Promise<void> {
  try {
    await whileClientSends(ctx.req, read);
  } catch (error) {
    if (error instanceof OverloadedOnResume) ctx.set('Retry-After', String(OVERLOAD_RETRY_AFTER_SECONDS));
    throw error;
  }
}

function hasBody(ctx: Context): boolean {
  const length = ctx.get('content-length');
  return (length !== '' && length !== '0') || ctx.get('transfer-encoding') !== '';
}

function toAppError(error: Error & { status?: number; type?: string }, limitBytes: number): AppError {
  if (error.status === 413 || error.type === 'entity.too.large') {
    return new AppError('payload_too_large', `request body must not exceed ${limitBytes} bytes`);
  }
  if (error.status === 415 || error.type === 'encoding.unsupported' || error.type === 'charset.unsupported') {
    return new AppError('unsupported_media_type', 'request body must be UTF-8 JSON');
  }
  if (error.type === 'request.aborted' || error.type === 'request.size.invalid') {
    return new AppError('validation_failed', 'request body was cut short');
  }
  // co-body marks a JSON.parse failure, or a top-level value that is not an object or array, as 400.
  return new AppError('invalid_json', `request body is not valid JSON: ${error.message}`);
}
