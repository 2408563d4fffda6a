// The panel's one connection to the gateway's event stream (GET /events, authorised by the
// session cookie), open while someone is logged in. The gateway allows an account few streams at
// once, and a user may keep several tabs open: every page of a tab shares this one, subscribing
// to the event types it follows. The browser reconnects by itself after a drop; events are not
// replayed, so subscribers reload what they show when the stream opens again.
import { API } from '../api.ts';
import { LIVE_EVENT_TYPES, type LiveEvent, type LiveEventOf, type LiveEventType } from './events.ts';

/**
 * EventSource gives up on an answer other than a stream (a proxy's 502 while the gateway
 * restarts, a 429 while other tabs hold the account's streams): the connection tries again this
 * much later.
 */
const REOPEN_AFTER_MS = 5_000;

export class LiveConnection {
  private source: EventSource | undefined;
  /** Whether the stream opened since open() was called: any later open follows a drop. */
  private openedBefore = false;
  private reopenTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly subscribers = new Map<LiveEventType, Set<(event: LiveEvent) => void>>();
  private readonly reconnectSubscribers = new Set<() => void>();

  open(): void {
    if (this.source) return;
    const source = new EventSource(`${API}/events`);
    this.source = source;
    source.addEventListener('open', () => {
      if (this.openedBefore) for (const subscriber of [...this.reconnectSubscribers]) subscriber();
      this.openedBefore = true;
      document.body.dataset.live = 'connected';
    });
    source.addEventListener('error', () => {
      document.body.dataset.live = 'reconnecting';
      if (source.readyState !== EventSource.CLOSED) return;
      this.source = undefined;
      this.reopenTimer = setTimeout(() => this.open(), REOPEN_AFTER_MS);
    });
    for (const type of LIVE_EVENT_TYPES) {
      source.addEventListener(type, (message) => {
        let event: LiveEvent;
        try {
          event = { ...(JSON.parse((message as MessageEvent<string>).data) as object), type } as LiveEvent;
        } catch {
          // A malformed event is skipped; the next reload shows the truth.
          return;
        }
        for (const subscriber of [...(this.subscribers.get(type) ?? [])]) subscriber(event);
      });
    }
  }

  /** Closes the stream (at logout); subscriptions stay for the next open(). */
  close(): void {
    clearTimeout(this.reopenTimer);
    this.source?.close();
    this.source = undefined;
    this.openedBefore = false;
    delete document.body.dataset.live;
  }

  /** Calls `handler` with each event of `type`; answers the function that stops it. */
  subscribe<Type extends LiveEventType>(type: Type, handler: (event: LiveEventOf<Type>) => void): () => void {
    const set = this.subscribers.get(type) ?? new Set();
    this.subscribers.set(type, set);
    const subscriber = handler as (event: LiveEvent) => void;
    set.add(subscriber);
    return () => set.delete(subscriber);
  }

  /** Calls `handler` each time the stream opens again after a drop; answers the function that stops it. */
  onReconnect(handler: () => void): () => void {
    this.reconnectSubscribers.add(handler);
    return () => this.reconnectSubscribers.delete(handler);
  }
}
