// Uploads whose body the handler streams itself (call recordings, MMS media and parts), for
// clients and phones alike: the body goes to the store as a stream of its own, no admission place
// is held while the client sends it, a client that goes away mid-body is its own doing, and a
// refusal that left the body unread closes the connection instead of reading the rest.
import { finished, PassThrough, type Readable } from 'node:stream';
import type { Context } from 'koa';
import { AppError } from '../common/errors.ts';
import { OVERLOAD_RETRY_AFTER_SECONDS, OverloadedOnResume, whileClientSends } from './middleware/admission.ts';

/** Runs `store` with the request body as a stream, then refuses the rest of an unread body; answers what `store` answers. */
export async function receiveUpload<T>(ctx: Context, store: (body: Readable, declaredBytes: number | undefined) => Promise<T>): Promise<T> {
  return refusingRestOfBody(ctx, () => streamUpload(ctx, store));
}

/**
 * Runs `work` (checks, then streamUpload), then answers; a refusal, or a repeat answered from what
 * is stored, has not read the body: the connection is closed after the answer.
 */
export async function refusingRestOfBody<T>(ctx: Context, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } finally {
    refuseRestOfBody(ctx);
  }
}

/** Hands the request body to `store` as a stream, with the length the request declared. */
export async function streamUpload<T>(ctx: Context, store: (body: Readable, declaredBytes: number | undefined) => Promise<T>): Promise<T> {
  const declared = ctx.get('content-length');
  const declaredBytes = /^\d+$/.test(declared) ? Number(declared) : undefined;
  // A client on a slow link takes a while to upload: it holds no admission place meanwhile.
  return whileClientSends(ctx.req, () => store(uploadBody(ctx), declaredBytes)).catch((error: unknown) => {
    // The client went away mid-body: its doing, not a gateway failure to log as one.
    if (!(error instanceof AppError) && ctx.req.readableAborted) throw new AppError('validation_failed', 'the upload was cut short: nothing was stored');
    if (error instanceof OverloadedOnResume) ctx.set('Retry-After', String(OVERLOAD_RETRY_AFTER_SECONDS));
    throw error;
  });
}

/**
 * The request body as a stream of its own: a store that gives up on it (the limit, a failure)
 * destroys this stream, never the request, so the client still gets its 413 or 415 answer.
 * A connection cut mid-body fails this stream, and with it the store's write.
 */
function uploadBody(ctx: Context): Readable {
  const body = new PassThrough();
  // Errors reach the store through its own listeners; this one keeps a late one (the request
  // closed after the answer) from being an unhandled error.
  body.on('error', () => undefined);
  ctx.req.pipe(body);
  finished(ctx.req, (error) => {
    if (error) body.destroy(error);
  });
  return body;
}

/** Answered before the body was read whole: answer, then close the connection instead of reading the rest. */
function refuseRestOfBody(ctx: Context): void {
  if (ctx.req.complete) return;
  ctx.set('Connection', 'close');
  ctx.res.once('finish', () => ctx.req.destroy());
}
