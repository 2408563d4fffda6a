// The start of a receiver's answer, kept with the attempt for the delivery log: an error page or
// a validation message tells an operator why a receiver refuses events far better than a bare
// status code. Only the first bytes are kept; the rest is read and dropped (up to a bound) so the
// connection can carry the next delivery.
import type { Readable } from 'node:stream';

/** Bytes of the receiver's answer kept with the attempt. */
export const ANSWER_EXCERPT_BYTES = 2048;

/** Reads `body` to its end (at most `readLimit` bytes); answers its first ANSWER_EXCERPT_BYTES as text. */
export async function answerExcerpt(body: Readable, readLimit: number): Promise<string> {
  const kept: Buffer[] = [];
  let keptBytes = 0;
  let read = 0;
  try {
    for await (const chunk of body as AsyncIterable<Buffer>) {
      read += chunk.length;
      if (keptBytes < ANSWER_EXCERPT_BYTES) {
        const part = chunk.subarray(0, ANSWER_EXCERPT_BYTES - keptBytes);
        kept.push(part);
        keptBytes += part.length;
      }
      if (read > readLimit) {
        body.destroy();
        break;
      }
    }
  } catch {
    // Cut off or too large: what arrived before is still worth showing.
  }
  return storableText(Buffer.concat(kept));
}

/** UTF-8 as far as it decodes (a character cut at the limit becomes U+FFFD), without NUL, which a text column cannot hold. */
function storableText(bytes: Buffer): string {
  return new TextDecoder('utf-8', { fatal: false }).decode(bytes).replace(/\u0000/g, '\uFFFD');
}
