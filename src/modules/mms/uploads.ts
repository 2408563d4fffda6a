// What media uploads and downloads share over HTTP, for clients and phones alike: the body
// streamed to the store without holding an admission place while the client sends it, the
// connection closed after a refusal that left the body unread, and downloads with Range.
import type { Context } from 'koa';
import type { Readable } from 'node:stream';
import { AppError } from '../../common/errors.ts';
import { OVERLOAD_RETRY_AFTER_SECONDS, OverloadedOnResume, whileClientSends } from '../../http/middleware/admission.ts';
import type { RouteResult } from '../../http/route.ts';
import { refuseRestOfBody, uploadBody } from '../calls/recordings/routes.ts';
import { UnsatisfiableRange, type MediaDownload } from './media-service.ts';

/** Runs `store` with the request body as a stream; answers what it answers. */
export async function receiveUpload<T>(ctx: Context, store: (body: Readable, declaredBytes: number | undefined) => Promise<T>): Promise<T> {
  try {
    const declared = ctx.get('content-length');
    const declaredBytes = /^\d+$/.test(declared) ? Number(declared) : undefined;
    // A client on a slow link takes a while to upload: it holds no admission place meanwhile.
    return await whileClientSends(ctx.req, () => store(uploadBody(ctx), declaredBytes)).catch((error: unknown) => {
      // The client went away mid-body: its doing, not a gateway failure to log as one.
      if (!(error instanceof AppError) && ctx.req.readableAborted) throw new AppError('validation_failed', 'the upload was cut short: nothing was stored');
      if (error instanceof OverloadedOnResume) ctx.set('Retry-After', String(OVERLOAD_RETRY_AFTER_SECONDS));
      throw error;
    });
  } finally {
    // A refusal, or a repeat answered from what is stored, has not read the body.
    refuseRestOfBody(ctx);
  }
}

/** A media download as an answer: the bytes streamed with their type, length and range. */
export async function serveMedia(ctx: Context, open: () => Promise<MediaDownload>): Promise<RouteResult> {
  let download;
  try {
    download = await open();
  } catch (error) {
    if (error instanceof UnsatisfiableRange) ctx.set({ 'Content-Range': `bytes */${error.size}`, 'Accept-Ranges': 'bytes' });
    throw error;
  }
  const { media, size, range, stream } = download;
  const headers: Record<string, string> = {
    'Content-Type': media.content_type,
    'Content-Length': String(range ? range.end - range.start + 1 : size),
    'Accept-Ranges': 'bytes',
    ETag: `"${media.sha256}"`,
    'Cache-Control': 'private, no-cache',
    // Served as what it is, never sniffed into something a browser runs.
    'X-Content-Type-Options': 'nosniff',
  };
  if (range) headers['Content-Range'] = `bytes ${range.start}-${range.end}/${size}`;
  return { status: range ? 206 : 200, headers, body: stream };
}
