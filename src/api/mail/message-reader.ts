// Reading a mail's DATA, bounded in bytes and in time, before anything parses it. smtp-server
// only says a mail was too large once the client has sent all of it: a client could so make the
// gateway read (and the MIME parser work through) 60 MB to refuse it, or hold a connection for
// ever by trickling a byte now and then, each of which restarts the idle timeout. Here the bytes
// are counted as they come: past the limit, or past the time DATA may take, the reading stops
// at once and the caller answers and closes the connection. A mail within both is handed over
// whole (at most the limit, 1 MiB), and only then parsed.
import type { Readable } from 'node:stream';

export interface MessageLimits {
  /** Bytes of DATA (after dot-unstuffing) a mail may have. */
  maxBytes: number;
  /** How long (ms) DATA may take, from its start to its final dot. */
  timeoutMs: number;
}

/**
 * The whole message; or why its reading was cut off, with the bytes read until then: too large,
 * too slow, or gone (the client went away mid-mail, nothing is left to answer).
 */
export type MessageReading = { message: Buffer } | { cut: 'too_large' | 'too_slow' | 'gone'; bytesRead: number };

export function readMessage(stream: Readable, limits: MessageLimits): Promise<MessageReading> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let bytesRead = 0;
    let done = false;
    const finish = (reading: MessageReading) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      stream.off('end', ended);
      stream.off('data', take);
      // Whatever still comes (the connection is being closed) is let through and dropped.
      if (!('message' in reading)) stream.on('data', () => undefined);
      resolve(reading);
    };
    const take = (chunk: Buffer) => {
      bytesRead += chunk.length;
      if (bytesRead > limits.maxBytes) return finish({ cut: 'too_large', bytesRead });
      chunks.push(chunk);
    };
    const ended = () => finish({ message: Buffer.concat(chunks) });
    const timer = setTimeout(() => finish({ cut: 'too_slow', bytesRead }), limits.timeoutMs);
    // The connection may go away mid-mail: smtp-server then destroys the stream (with an error
    // only to a listener), which closes without ending.
    stream.on('error', () => undefined);
    stream.once('close', () => finish({ cut: 'gone', bytesRead }));
    stream.on('data', take);
    stream.once('end', ended);
  });
}
