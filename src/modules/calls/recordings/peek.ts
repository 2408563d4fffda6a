// Reads the first bytes of a stream before anything is stored (to know what the upload is), and
// gives back a stream of the whole body, those bytes first. Nothing beyond `bytes` is read ahead.
import { Readable } from 'node:stream';

export interface Peeked {
  /** Up to the number of bytes asked for; fewer when the body is shorter. */
  head: Buffer;
  /** The whole body, from its first byte. */
  body: Readable;
}

export async function peek(stream: Readable, bytes: number): Promise<Peeked> {
  const iterator = stream[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const chunks: Buffer[] = [];
  let length = 0;
  let ended = false;
  while (length < bytes) {
    const next = await iterator.next();
    if (next.done) {
      ended = true;
      break;
    }
    chunks.push(next.value);
    length += next.value.length;
  }
  const read = Buffer.concat(chunks);
  async function* whole(): AsyncGenerator<Buffer> {
    if (read.length > 0) yield read;
    if (ended) return;
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
  }
  // Destroying the body (a failed store) ends the iterator, which destroys the source stream.
  const body = Readable.from(whole(), { objectMode: false });
  body.on('close', () => void iterator.return?.());
  return { head: read.subarray(0, bytes), body };
}
