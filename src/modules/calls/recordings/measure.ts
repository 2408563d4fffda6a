// Counts and hashes the bytes of an upload as they stream past, and stops the stream the moment
// it passes the size limit: a store never has to hold or even receive a body too large to keep.
import { createHash } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';
import { RecordingTooLarge, type StoredObject } from './store.ts';

export class MeasuringStream extends Transform {
  private readonly hash = createHash('sha256');
  private size = 0;

  constructor(private readonly maxBytes: number) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.size += chunk.length;
    if (this.size > this.maxBytes) {
      done(new RecordingTooLarge(this.maxBytes));
      return;
    }
    this.hash.update(chunk);
    done(null, chunk);
  }

  /** Size and digest; read it only after the stream has ended. */
  result(): StoredObject {
    return { size: this.size, sha256: this.hash.digest('hex') };
  }
}
