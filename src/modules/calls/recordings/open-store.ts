// Which store the recordings go to: the bucket RECORDINGS_S3_URL names, or DATA_DIR/recordings.
import type { Config } from '../../../config.ts';
import { FilesystemRecordingStore } from './filesystem-store.ts';
import { S3RecordingStore } from './s3-store.ts';
import type { RecordingStore } from './store.ts';

export function openRecordingStore(config: Config['recordings']): RecordingStore {
  return config.s3 ? new S3RecordingStore(config.s3) : new FilesystemRecordingStore(config.directory);
}
