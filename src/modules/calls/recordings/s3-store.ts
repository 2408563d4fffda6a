// Recordings in an S3-compatible bucket (RECORDINGS_S3_URL), through the AWS SDK. A multipart
// upload (lib-storage) streams the body in parts of a few MiB, and the object only appears when
// the upload completes: a body that fails or passes the limit aborts the upload, leaving nothing.
import { DeleteObjectCommand, GetObjectCommand, NoSuchKey, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { PassThrough, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { S3Location } from '../../../config.ts';
import { MeasuringStream } from './measure.ts';
import type { ByteRange, PutLimits, RecordingStore, StoredObject } from './store.ts';

/** Part size of the multipart upload: the most of a body held in memory per upload, times the queue. */
const PART_BYTES = 5 * 1024 * 1024;

export class S3RecordingStore implements RecordingStore {
  private readonly client: S3Client;
  private readonly bucket: string;

  constructor(location: S3Location) {
    this.bucket = location.bucket;
    this.client = new S3Client({
      endpoint: location.endpoint,
      region: location.region,
      forcePathStyle: location.forcePathStyle,
      ...(location.credentials ? { credentials: location.credentials } : {}),
    });
  }

  async put(key: string, body: Readable, limits: PutLimits): Promise<StoredObject> {
    const measure = new MeasuringStream(limits.maxBytes);
    // The SDK reads from its own end of the pipe; the pipeline carries a failure (a cut body, the
    // limit) to the upload, which then aborts instead of completing.
    const toUpload = new PassThrough();
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.bucket, Key: key, Body: toUpload },
      partSize: PART_BYTES,
      queueSize: 1,
      leavePartsOnError: false,
    });
    const sent = upload.done();
    try {
      await pipeline(body, measure, toUpload);
    } catch (error) {
      await upload.abort().catch(() => undefined);
      await sent.catch(() => undefined);
      throw error;
    }
    await sent;
    return measure.result();
  }

  async open(key: string, range?: ByteRange): Promise<{ stream: Readable; size: number } | undefined> {
    try {
      const object = await this.client.send(
        new GetObjectCommand({ Bucket: this.bucket, Key: key, ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}) }),
      );
      // Whole object: its length. A range: the total after the slash of Content-Range.
      const size = range ? Number(/\/(\d+)$/.exec(object.ContentRange ?? '')?.[1]) : Number(object.ContentLength);
      return { stream: object.Body as Readable, size };
    } catch (error) {
      if (error instanceof NoSuchKey || (error instanceof S3ServiceException && error.$metadata.httpStatusCode === 404)) return undefined;
      throw error;
    }
  }

  async remove(key: string): Promise<void> {
    // S3 answers a delete of a missing key with success too.
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
  }
}
