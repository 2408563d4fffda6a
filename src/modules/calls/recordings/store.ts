// Where recording audio lives: one small interface, a directory (the default) or an S3 bucket
// behind it. The database row (call_recordings) is the index; a store only keeps bytes by key.
import type { Readable } from 'node:stream';

export interface PutLimits {
  /** Bytes accepted at most; one more and put fails with RecordingTooLarge, storing nothing. */
  maxBytes: number;
}

export interface StoredObject {
  size: number;
  /** Lower-case hex SHA-256 of the bytes stored. */
  sha256: string;
}

/** Inclusive byte offsets, as an HTTP Range names them. */
export interface ByteRange {
  start: number;
  end: number;
}

export interface RecordingStore {
  /**
   * Streams `body` under `key`; the object becomes visible only once the whole body is stored
   * (temporary name then rename, or a multipart upload completed). If the body fails, is cut
   * short or passes the limit, nothing is left under `key` and the error is thrown.
   */
  put(key: string, body: Readable, limits: PutLimits): Promise<StoredObject>;
  /** The object's bytes (or `range` of them) and its whole size; undefined when there is no such key. */
  open(key: string, range?: ByteRange): Promise<{ stream: Readable; size: number } | undefined>;
  /** Removes the object; removing a missing key is not an error (a retried delete). */
  remove(key: string): Promise<void>;
}

/** The body passed PutLimits.maxBytes. */
export class RecordingTooLarge extends Error {
  constructor(readonly maxBytes: number) {
    super(`recording exceeds ${maxBytes} bytes`);
    this.name = 'RecordingTooLarge';
  }
}

/**
 * A key per call, spread over two levels of 256 directories by the first hex digits of its
 * uuid: 65,536 directories, so ten million recordings are about 150 files each (a flat
 * directory of millions of entries is slow to list, back up and clean on most file systems).
 * S3 needs no sharding but gets the same key, so a bucket and a directory look alike.
 */
export function recordingKey(callId: string): string {
  const hex = callId.toLowerCase().replace(/-/g, '');
  return `${hex.slice(0, 2)}/${hex.slice(2, 4)}/${callId.toLowerCase()}`;
}
