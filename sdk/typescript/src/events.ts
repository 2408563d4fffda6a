// The live event stream (GET /api/ext/v1/events): server-sent events, read over fetch so that it
// works on Node without EventSource and can carry the API key. Events are not replayed after a
// reconnect, so the iterator ends when the connection does and the caller decides whether to
// reload what it shows and open the stream again.

/** One event of the stream: its name (sms.status, device.presence, sms.received) and its data, parsed. */
export interface LiveEvent<Data = Record<string, unknown>> {
  event: string;
  data: Data;
}

/** Reads server-sent events from a response body until it ends. */
export async function* readServerSentEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<LiveEvent> {
  const decoder = new TextDecoder();
  let buffered = '';
  let name = 'message';
  let data: string[] = [];
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      buffered += decoder.decode(value, { stream: true });
      let newline: number;
      while ((newline = buffered.search(/\r\n|\n|\r/)) !== -1) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + (buffered.startsWith('\r\n', newline) ? 2 : 1));
        if (line === '') {
          // A blank line dispatches the event gathered so far; comments and retry: alone gather none.
          if (data.length > 0) yield { event: name, data: parseData(data.join('\n')) };
          name = 'message';
          data = [];
        } else if (line.startsWith('event:')) {
          name = line.slice(6).trim();
        } else if (line.startsWith('data:')) {
          data.push(line.slice(5).replace(/^ /, ''));
        }
      }
    }
  } finally {
    reader.releaseLock();
    await body.cancel().catch(() => undefined);
  }
}

function parseData(text: string): Record<string, unknown> {
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return { text };
  }
}
