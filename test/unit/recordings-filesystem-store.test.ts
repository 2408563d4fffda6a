import { expect } from 'chai';
import { createHash, randomUUID } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { FilesystemRecordingStore } from '../../src/modules/calls/recordings/filesystem-store.ts';
import { peek } from '../../src/modules/calls/recordings/peek.ts';
import { RecordingTooLarge, recordingKey } from '../../src/modules/calls/recordings/store.ts';

/** The error `promise` rejects with; fails the test when it resolves. */
async function rejection(promise: Promise<unknown>): Promise<NodeJS.ErrnoException> {
  try {
    await promise;
  } catch (error) {
    return error as NodeJS.ErrnoException;
  }
  throw new Error('expected a rejection');
}

describe('filesystem recording store', () => {
  let root: string;
  let store: FilesystemRecordingStore;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'recordings-'));
    store = new FilesystemRecordingStore(root);
  });
  afterEach(() => rm(root, { recursive: true, force: true }));

  /** Every file under root except the partial directory's. */
  async function visibleFiles(): Promise<string[]> {
    const entries = await readdir(root, { recursive: true, withFileTypes: true });
    return entries.filter((entry) => entry.isFile() && !entry.parentPath.includes('.partial')).map((entry) => entry.name);
  }

  it('shards keys two levels deep by the first hex digits of the uuid', () => {
    expect(recordingKey('ABCDEF01-2345-4678-9abc-def012345678')).to.equal('ab/cd/abcdef01-2345-4678-9abc-def012345678');
  });

  it('stores a streamed body under its sharded path with its size and SHA-256', async () => {
    const key = recordingKey(randomUUID());
    const chunks = [Buffer.from('first '), Buffer.from('second '), Buffer.from('third')];
    const stored = await store.put(key, Readable.from(chunks), { maxBytes: 1024 });
    const bytes = Buffer.concat(chunks);
    expect(stored).to.deep.equal({ size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') });
    expect(await readFile(join(root, key))).to.deep.equal(bytes);
    expect(await readdir(join(root, '.partial'))).to.deep.equal([]);
  });

  it('keeps nothing when the body passes the limit, and stops reading it there', async () => {
    let produced = 0;
    const endless = Readable.from(
      (function* () {
        for (;;) {
          produced += 1024;
          yield Buffer.alloc(1024, 1);
        }
      })(),
    );
    const put = store.put(recordingKey(randomUUID()), endless, { maxBytes: 10_000 });
    expect(await rejection(put)).to.be.instanceOf(RecordingTooLarge);
    expect(produced).to.be.below(100_000);
    expect(await visibleFiles()).to.deep.equal([]);
    expect(await readdir(join(root, '.partial'))).to.deep.equal([]);
  });

  it('keeps nothing when the body fails half way (a cut connection)', async () => {
    const body = new PassThrough();
    const key = recordingKey(randomUUID());
    const put = store.put(key, body, { maxBytes: 1_000_000 });
    body.write(Buffer.alloc(50_000, 2));
    setImmediate(() => body.destroy(new Error('connection reset')));
    expect((await rejection(put)).message).to.equal('connection reset');
    expect(await visibleFiles()).to.deep.equal([]);
    expect(await readdir(join(root, '.partial'))).to.deep.equal([]);
  });

  it('opens the whole object or an inclusive byte range, and undefined for a missing key', async () => {
    const key = recordingKey(randomUUID());
    await store.put(key, Readable.from([Buffer.from('0123456789')]), { maxBytes: 100 });
    const whole = await store.open(key);
    expect(whole?.size).to.equal(10);
    expect(await text(whole!.stream)).to.equal('0123456789');
    const slice = await store.open(key, { start: 2, end: 5 });
    expect(slice?.size).to.equal(10);
    expect(await text(slice!.stream)).to.equal('2345');
    expect(await store.open(recordingKey(randomUUID()))).to.equal(undefined);
  });

  it('removes an object, and removing it again is no error', async () => {
    const key = recordingKey(randomUUID());
    await store.put(key, Readable.from([Buffer.from('bytes')]), { maxBytes: 100 });
    await store.remove(key);
    await store.remove(key);
    expect((await rejection(stat(join(root, key)))).code).to.equal('ENOENT');
  });

  it('refuses to open a key that is not one recordingKey makes (no path escapes the root)', async () => {
    expect((await rejection(store.open('../../etc/passwd'))).message).to.equal('malformed recording storage key');
  });

  it('removes nothing for a key that is not one recordingKey makes: no path is made of it, and no error holds up the removal queue', async () => {
    // Where the key would lead if it were joined to the root: that file must stay.
    await writeFile(join(root, 'x'), 'not a recording');
    await store.remove('ab/cd/../../x');
    await store.remove('test/another-store-key');
    expect(await readFile(join(root, 'x'), 'utf8')).to.equal('not a recording');
  });
});

describe('peek', () => {
  it('reads the head and still yields the whole body, short or long', async () => {
    const long = await peek(Readable.from([Buffer.from('abc'), Buffer.from('defgh'), Buffer.from('ij')]), 4);
    expect(long.head.toString()).to.equal('abcd');
    expect(await text(long.body)).to.equal('abcdefghij');
    const short = await peek(Readable.from([Buffer.from('xy')]), 4);
    expect(short.head.toString()).to.equal('xy');
    expect(await text(short.body)).to.equal('xy');
  });
});
