// A media download as an answer, for clients (GET /media/{id}) and phones (their own GET
// /media/{id}) alike: the bytes streamed with their type, length and range.
import type { Context } from 'koa';
import { serveRange } from '../../../http/range-download.ts';
import type { RouteResult } from '../../../http/route.ts';
import type { MediaDownload } from '../../../modules/mms/media-service.ts';

// Served as what it is, never sniffed into something a browser runs.
const NO_SNIFFING = { 'X-Content-Type-Options': 'nosniff' };

export function serveMedia(ctx: Context, open: () => Promise<MediaDownload>): Promise<RouteResult> {
  return serveRange(ctx, open, (download) => download.media, NO_SNIFFING);
}
