// A stored file as a download answer (call recordings, MMS media): whole (200) or the one byte
// range asked for (206, Content-Range), with its type, length and ETag; a range past the end is
// 416 naming the size, so that a player can ask again within it.
import type { Context } from 'koa';
import { UnsatisfiableRange, type RangedFile } from '../modules/calls/recordings/range.ts';
import type { RouteResult } from './route.ts';

/** What a download says of its file: the row the store's bytes belong to. */
interface Described {
  content_type: string;
  sha256: string;
}

/** Opens the download and answers it; `extra` headers follow the standard ones. */
export async function serveRange<T extends RangedFile>(
  ctx: Context,
  open: () => Promise<T>,
  rowOf: (download: T) => Described,
  extra: Record<string, string> = {},
): Promise<RouteResult> {
  let download: T;
  try {
    download = await open();
  } catch (error) {
    if (error instanceof UnsatisfiableRange) ctx.set({ 'Content-Range': `bytes */${error.size}`, 'Accept-Ranges': 'bytes' });
    throw error;
  }
  const { size, range, stream } = download;
  const row = rowOf(download);
  const headers: Record<string, string> = {
    'Content-Type': row.content_type,
    'Content-Length': String(range ? range.end - range.start + 1 : size),
    'Accept-Ranges': 'bytes',
    ETag: `"${row.sha256}"`,
    'Cache-Control': 'private, no-cache',
    ...extra,
  };
  if (range) headers['Content-Range'] = `bytes ${range.start}-${range.end}/${size}`;
  return { status: range ? 206 : 200, headers, body: stream };
}
