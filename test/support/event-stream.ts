// A client of GET /api/ext/v1/events that reads the server-sent events as they arrive, for
// tests that wait for one: next() resolves with the first matching event, or fails on timeout.
export interface StreamEvent {
  type: string;
  data: any;
}

export class EventStreamClient {
  private readonly seen: StreamEvent[] = [];
  private readonly waiters = new Set<() => void>();
  private readonly abort = new AbortController();
  status = 0;
  contentType: string | null = null;
  ended = false;

  private constructor() {}

  /** Opens the stream; resolves once the answer's headers are in. */
  static async open(url: string, headers: Record<string, string>): Promise<EventStreamClient> {
    const client = new EventStreamClient();
    const response = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: client.abort.signal });
    client.status = response.status;
    client.contentType = response.headers.get('content-type');
    if (response.ok && response.body) void client.read(response.body);
    else {
      client.body = await response.text();
      client.ended = true;
    }
    return client;
  }

  /** The body of a refusal (not a stream). */
  body = '';

  private async read(body: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of body) {
        buffer += decoder.decode(chunk, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          this.parse(buffer.slice(0, end));
          buffer = buffer.slice(end + 2);
        }
      }
    } catch {
      // aborted by close()
    }
    this.ended = true;
    this.notify();
  }

  private parse(block: string): void {
    let type = 'message';
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith('event: ')) type = line.slice(7);
      else if (line.startsWith('data: ')) data.push(line.slice(6));
    }
    if (data.length === 0) return;
    this.seen.push({ type, data: JSON.parse(data.join('\n')) });
    this.notify();
  }

  private notify(): void {
    for (const waiter of this.waiters) waiter();
  }

  /** Every event read so far. */
  get events(): readonly StreamEvent[] {
    return this.seen;
  }

  /** The first event (already read or still to come) of `type` for which `accept` holds. */
  next(type: string, accept: (data: any) => boolean = () => true, timeoutMs = 5_000): Promise<StreamEvent> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const found = this.seen.find((event) => event.type === type && accept(event.data));
        if (found) return done(() => resolve(found));
        if (this.ended) done(() => reject(new Error(`the stream ended without a matching "${type}" event`)));
      };
      const timer = setTimeout(() => done(() => reject(new Error(`no matching "${type}" event within ${timeoutMs} ms`))), timeoutMs);
      const done = (settle: () => void) => {
        clearTimeout(timer);
        this.waiters.delete(check);
        settle();
      };
      this.waiters.add(check);
      check();
    });
  }

  /** Resolves once the server ended the stream. */
  closed(timeoutMs = 5_000): Promise<void> {
    return new Promise((resolve, reject) => {
      const check = () => {
        if (!this.ended) return;
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve();
      };
      const timer = setTimeout(() => reject(new Error(`the stream was still open after ${timeoutMs} ms`)), timeoutMs);
      this.waiters.add(check);
      check();
    });
  }

  stop(): void {
    this.abort.abort();
  }
}
