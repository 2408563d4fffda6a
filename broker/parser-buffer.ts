// The bytes an MQTT connection's parser holds between packets, without a stream around them.
//
// mqtt-packet's parser keeps the bytes of a packet not yet complete in a `bl` BufferListStream:
// a whole Duplex stream (its readable and writable states, event table and buffers) per
// connection, about 1 KB of heap for each connected device, of which the parser uses only the
// list: append, read a byte or an integer, slice, consume. This is that list alone, with the same
// answers (a slice within one chunk is a view of it, as bl's is; across chunks, a copy).
import type { Client } from 'aedes';

export class ParserBuffer {
  private readonly chunks: Buffer[] = [];
  length = 0;

  append(chunk: Buffer | Uint8Array): this {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    if (buffer.length === 0) return this;
    this.chunks.push(buffer);
    this.length += buffer.length;
    return this;
  }

  readUInt8(offset = 0): number {
    let at = offset;
    for (const chunk of this.chunks) {
      if (at < chunk.length) return chunk[at]!;
      at -= chunk.length;
    }
    throw new RangeError(`offset ${offset} is beyond the ${this.length} bytes held`);
  }

  readUInt16BE(offset = 0): number {
    return this.slice(offset, offset + 2).readUInt16BE(0);
  }

  readUInt32BE(offset = 0): number {
    return this.slice(offset, offset + 4).readUInt32BE(0);
  }

  toString(encoding: BufferEncoding = 'utf8', start = 0, end = this.length): string {
    return this.slice(start, end).toString(encoding);
  }

  /** The bytes from start to end: a view when they lie in one chunk, else a copy. */
  slice(start = 0, end = this.length): Buffer {
    const from = Math.max(0, Math.min(start, this.length));
    const to = Math.max(from, Math.min(end, this.length));
    if (from === to) return Buffer.alloc(0);
    let offset = 0;
    const pieces: Buffer[] = [];
    for (const chunk of this.chunks) {
      const chunkEnd = offset + chunk.length;
      if (chunkEnd > from && offset < to) {
        const piece = chunk.subarray(Math.max(0, from - offset), Math.min(chunk.length, to - offset));
        if (pieces.length === 0 && piece.length === to - from) return piece;
        pieces.push(piece);
      }
      if (chunkEnd >= to) break;
      offset = chunkEnd;
    }
    return Buffer.concat(pieces, to - from);
  }

  /** Drops the first `bytes` bytes. */
  consume(bytes: number): this {
    let left = Math.max(0, Math.trunc(bytes));
    while (left > 0 && this.chunks.length > 0) {
      const first = this.chunks[0]!;
      if (left >= first.length) {
        this.chunks.shift();
        left -= first.length;
        this.length -= first.length;
      } else {
        this.chunks[0] = first.subarray(left);
        this.length -= left;
        left = 0;
      }
    }
    // A connection idle between packets then holds an array without room kept for chunks.
    if (this.chunks.length === 0) this.chunks.length = 0;
    return this;
  }
}

/**
 * Gives the connection's parser a ParserBuffer in place of its BufferListStream. Call right after
 * `aedes.handle`, before the first byte is parsed (parsing starts on a later 'readable' event).
 * A parser that reset after an error makes itself a new BufferListStream: its connection closes.
 */
export function useParserBuffer(client: Client): void {
  const parser = (client as Client & { _parser?: { _list?: { length?: number } } })._parser;
  if (parser?._list && parser._list.length === 0) parser._list = new ParserBuffer();
}
