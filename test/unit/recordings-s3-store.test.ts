// The S3 store against s3rver, a local S3-compatible server from npm (in-process, offline): the
// same AWS SDK calls, multipart upload included, that a real bucket receives.
import { expect } from 'chai';
import { createHash, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { buffer, text } from 'node:stream/consumers';
// @ts-expect-error s3rver ships no types
import S3rver from 's3rver';
import { loadConfig } from '../../src/config.ts';
import { S3RecordingStore } from '../../src/modules/calls/recordings/s3-store.ts';
import { RecordingTooLarge, recordingKey } from '../../src/modules/calls/recordings/store.ts';
import { rejection } from '../support/rejection.ts';

describe('S3 recording store (s3rver)', () => {
  let directory: string;
  let server: { run(): Promise<{ port: number }>; close(): Promise<void> };
  let store: S3RecordingStore;

  before(async () => {
    directory = await mkdtemp(join(tmpdir(), 's3rver-'));
    server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory, configureBuckets: [{ name: 'recordings' }] });
    const { port } = await server.run();
    // Through the same parser as RECORDINGS_S3_URL: s3rver takes the key pair S3RVER:S3RVER.
    const config = loadConfig({ RECORDINGS_S3_URL: `s3://S3RVER:S3RVER@127.0.0.1:${port}/recordings?path_style=true&tls=false` });
    store = new S3RecordingStore(config.recordings.s3!);
  });
  after(async () => {
    await server?.close();
    await rm(directory, { recursive: true, force: true });
  });

  it('stores a body larger than one multipart part, with its size and SHA-256, and reads it back', async function () {
    this.timeout(30_000);
    const key = recordingKey(randomUUID());
    const bytes = Buffer.alloc(12 * 1024 * 1024);
    for (let i = 0; i < bytes.length; i += 4096) bytes[i] = i & 0xff;
    const stored = await store.put(key, Readable.from([bytes.subarray(0, 7_000_000), bytes.subarray(7_000_000)]), { maxBytes: 50 * 1024 * 1024 });
    expect(stored).to.deep.equal({ size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') });
    const opened = await store.open(key);
    expect(opened?.size).to.equal(bytes.length);
    expect((await buffer(opened!.stream)).equals(bytes)).to.equal(true);
  });

  it('opens a byte range with the whole size, and undefined for a missing key', async () => {
    const key = recordingKey(randomUUID());
    await store.put(key, Readable.from([Buffer.from('0123456789')]), { maxBytes: 100 });
    const slice = await store.open(key, { start: 7, end: 9 });
    expect(slice?.size).to.equal(10);
    expect(await text(slice!.stream)).to.equal('789');
    expect(await store.open(recordingKey(randomUUID()))).to.equal(undefined);
  });

  it('leaves no object when the body passes the limit or fails half way', async () => {
    const tooLarge = recordingKey(randomUUID());
    expect(await rejection(store.put(tooLarge, Readable.from([Buffer.alloc(300_000)]), { maxBytes: 200_000 }))).to.be.instanceOf(RecordingTooLarge);
    expect(await store.open(tooLarge)).to.equal(undefined);

    const cut = recordingKey(randomUUID());
    const body = new PassThrough();
    const put = store.put(cut, body, { maxBytes: 1_000_000 });
    body.write(Buffer.alloc(10_000, 3));
    setImmediate(() => body.destroy(new Error('connection reset')));
    expect((await rejection(put)).message).to.equal('connection reset');
    expect(await store.open(cut)).to.equal(undefined);
  });

  it('removes an object; removing it again is no error', async () => {
    const key = recordingKey(randomUUID());
    await store.put(key, Readable.from([Buffer.from('bytes')]), { maxBytes: 100 });
    await store.remove(key);
    await store.remove(key);
    expect(await store.open(key)).to.equal(undefined);
  });
});
