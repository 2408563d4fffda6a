// The start of a receiver's answer, kept with the attempt for the delivery log: an error page or
// a validation message tells an operator why a receiver refuses events far better than a bare
// status code. Only the first bytes are kept; the rest is read and dropped (up to a bound) so the
// connection can carry the next delivery.
import { finished, type Readable } from 'node:stream';

/** Bytes of the receiver's answer kept with the attempt. */
export const ANSWER_EXCERPT_BYTES = 2048;

/** Decodes without state between calls (no `stream` option): one serves every answer. */
const utf8 = new TextDecoder('utf-8', { fatal: false });

/**
 * Reads `body` to its end (at most `readLimit` bytes); answers its first ANSWER_EXCERPT_BYTES as
 * text. Read by its events rather than as an async iterator: one is read for every webhook
 * attempt, and the iterator's promise per chunk cost more than the answer is worth.
 */
export function answerExcerpt(body: Readable, readLimit: number): Promise<string> {
  return new Promise((resolve) => {
    const kept: Buffer[] = [];
    let keptBytes = 0;
    let read = 0;
    let answered = false;
    // Ended, cut off or too large: what arrived before is still worth showing.
    const answer = () => {
      if (answered) return;
      answered = true;
      resolve(storableText(kept.length === 1 ? kept[0]! : Buffer.concat(kept)));
    };
    body.on('data', (chunk: Buffer) => {
      read += chunk.length;
      if (keptBytes < ANSWER_EXCERPT_BYTES) {
        const part = chunk.subarray(0, ANSWER_EXCERPT_BYTES - keptBytes);
        kept.push(part);
        keptBytes += part.length;
      }
      if (read > readLimit) {
        body.destroy();
        answer();
      }
    });
    finished(body, answer);
  });
}

/** UTF-8 as far as it decodes (a character cut at the limit becomes U+FFFD), without NUL, which a text column cannot hold. */
function storableText(bytes: Buffer): string {
  const text = utf8.decode(bytes);
  return text.includes('\u0000') ? text.replace(/\u0000/g, '\uFFFD') : text;
}
