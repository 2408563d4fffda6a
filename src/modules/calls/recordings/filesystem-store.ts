// Recordings as files under DATA_DIR/recordings, at their sharded keys (ab/cd/<uuid>). An upload
// is written to .partial/ first, flushed to disk, then renamed into place: a reader, a crash or
// a cut connection can never see half a recording under its key. A crash mid-upload leaves a
// file in .partial/; the next start removes those older than a day (not younger ones: another
// gateway sharing DATA_DIR may be writing them).
import { createReadStream, createWriteStream, type WriteStream } from 'node:fs';
import { open, readdir, rename, rm, stat, unlink } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import { MeasuringStream } from './measure.ts';
import type { ByteRange, PutLimits, RecordingStore, StoredObject } from './store.ts';
import { makeDirectoryAsync } from '../../../common/make-directory.ts';

/** Keys are made by recordingKey(); anything else (a path with ..) is refused, whatever the database says. */
const KEY_PATTERN = /^[0-9a-f]{2}\/[0-9a-f]{2}\/[0-9a-f-]{36}$/;
/** A partial file this old belongs to no upload still running. */
const STALE_PARTIAL_MS = 24 * 3600 * 1000;

export class FilesystemRecordingStore implements RecordingStore {
  private readonly partialDir: string;
  private prepared: Promise<void> | undefined;

  constructor(private readonly root: string) {
    this.partialDir = join(root, '.partial');
  }

  async put(key: string, body: Readable, limits: PutLimits): Promise<StoredObject> {
    const target = this.pathOf(key);
    // Until the pipeline below listens, a body that fails (a cut connection) must not throw an
    // unhandled error; the pipeline then sees the stream's stored error and rejects with it.
    const holdError = () => undefined;
    body.on('error', holdError);
    const partial = join(this.partialDir, `${randomUUID()}.part`);
    const measure = new MeasuringStream(limits.maxBytes);
    let file: WriteStream | undefined;
    try {
      await this.prepare();
      file = createWriteStream(partial, { flags: 'wx', mode: 0o600 });
      const written = pipeline(body, measure, file);
      body.off('error', holdError);
      await written;
      // Renamed only once the bytes are on disk: after a power cut the key holds all or nothing.
      await syncFile(partial);
      await makeDirectoryAsync(dirname(target));
      await rename(partial, target);
      await syncFile(dirname(target)).catch(() => undefined);
      return measure.result();
    } catch (error) {
      body.off('error', holdError);
      // A body that fails at once fails before the file is even open; the stream still opens
      // (creating it) and then closes: remove it only after that, or it would outlive the unlink.
      if (file && !file.closed) await once(file, 'close').catch(() => undefined);
      await unlink(partial).catch(() => undefined);
      throw error;
    }
  }

  async open(key: string, range?: ByteRange): Promise<{ stream: Readable; size: number } | undefined> {
    const path = this.pathOf(key);
    try {
      const { size } = await stat(path);
      return { stream: createReadStream(path, range ? { start: range.start, end: range.end } : {}), size };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  async remove(key: string): Promise<void> {
    // A key this store could not have written (another store's, from before the configuration
    // changed) names no file here: there is nothing to remove, and no path is made of it.
    if (!KEY_PATTERN.test(key)) return;
    await rm(this.pathOf(key), { force: true });
  }

  private pathOf(key: string): string {
    if (!KEY_PATTERN.test(key)) throw new Error('malformed recording storage key');
    return join(this.root, key);
  }

  /** Once per process: the partial directory exists, without what a crash left there long ago. */
  private prepare(): Promise<void> {
    this.prepared ??= (async () => {
      await makeDirectoryAsync(this.partialDir, 0o700);
      const cutoff = Date.now() - STALE_PARTIAL_MS;
      for (const name of await readdir(this.partialDir)) {
        const path = join(this.partialDir, name);
        const info = await stat(path).catch(() => undefined);
        if (info && info.mtimeMs < cutoff) await rm(path, { force: true });
      }
    })();
    return this.prepared;
  }
}

/** fsync of a file, or of a directory (which makes a rename in it durable; not every file system can, which is no failure). */
async function syncFile(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync().catch(() => undefined);
  } finally {
    await handle.close();
  }
}
