// Which store the recordings go to: the bucket RECORDINGS_S3_URL names, or DATA_DIR/recordings.
// The AWS SDK is loaded only when a bucket is configured: it is large, slow to load, and warns
// on every process about Node versions, none of which a gateway keeping files on disk needs.
import type { Readable } from 'node:stream';
import type { Config } from '../../../config.ts';
import { FilesystemRecordingStore } from './filesystem-store.ts';
import type { ByteRange, PutLimits, RecordingStore, StoredObject } from './store.ts';

export function openRecordingStore(config: Config['recordings']): RecordingStore {
  const s3 = config.s3;
  return s3 ? new LazyStore(async () => new (await import('./s3-store.ts')).S3RecordingStore(s3)) : new FilesystemRecordingStore(config.directory);
}

/** A store made on first use. */
class LazyStore implements RecordingStore {
  private store: Promise<RecordingStore> | undefined;

  constructor(private readonly make: () => Promise<RecordingStore>) {}

  private get(): Promise<RecordingStore> {
    return (this.store ??= this.make());
  }

  async put(key: string, body: Readable, limits: PutLimits): Promise<StoredObject> {
    return (await this.get()).put(key, body, limits);
  }

  async open(key: string, range?: ByteRange): Promise<{ stream: Readable; size: number } | undefined> {
    return (await this.get()).open(key, range);
  }

  async remove(key: string): Promise<void> {
    return (await this.get()).remove(key);
  }
}
