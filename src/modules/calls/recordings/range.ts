// The Range header of a download (RFC 9110 14.2), so that a browser's audio player can seek. One
// range is served; a header that is malformed or asks for several ranges is ignored (the whole
// file, 200), as the RFC allows. A range that starts past the end cannot be served (416).
// Shared by call recordings and MMS media, which keep their bytes in the same store.
import type { Readable } from 'node:stream';
import { AppError } from '../../../common/errors.ts';
import type { ByteRange, RecordingStore } from './store.ts';

/** 416: the Range starts past the file's end; the answer names the size (Content-Range: bytes *\/size). */
export class UnsatisfiableRange extends AppError {
  constructor(readonly size: number) {
    super('range_not_satisfiable');
  }
}

/** A stored file opened for a download: its whole size, and the bytes asked for. */
export interface RangedFile {
  size: number;
  stream: Readable;
  /** Absent: the whole file. */
  range?: ByteRange;
}

/**
 * Opens the stored file `key` of `size` bytes, whole or the one range `header` asks for (a range
 * past the end throws UnsatisfiableRange); undefined when the store has no such file.
 */
export async function openRange(store: Pick<RecordingStore, 'open'>, key: string, size: number, header: string | undefined): Promise<RangedFile | undefined> {
  const wanted = parseRange(header, size);
  if (wanted.kind === 'unsatisfiable') throw new UnsatisfiableRange(size);
  const range = wanted.kind === 'range' ? wanted.range : undefined;
  const opened = await store.open(key, range);
  if (!opened) return undefined;
  return { size, stream: opened.stream, ...(range ? { range } : {}) };
}

export type RangeRequest = { kind: 'whole' } | { kind: 'range'; range: ByteRange } | { kind: 'unsatisfiable' };

export function parseRange(header: string | undefined, size: number): RangeRequest {
  if (!header) return { kind: 'whole' };
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match || (match[1] === '' && match[2] === '')) return { kind: 'whole' };
  const [, first, last] = match as unknown as [string, string, string];
  if (first === '') {
    // bytes=-N: the last N bytes.
    const suffix = Number(last);
    if (suffix === 0 || size === 0) return { kind: 'unsatisfiable' };
    return { kind: 'range', range: { start: Math.max(0, size - suffix), end: size - 1 } };
  }
  const start = Number(first);
  const end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
  if (last !== '' && Number(last) < start) return { kind: 'whole' };
  if (start >= size) return { kind: 'unsatisfiable' };
  return { kind: 'range', range: { start, end } };
}
