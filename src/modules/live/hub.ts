// Live events for the control panel: each open stream subscribes to its account, and whatever
// happens in the account is handed to its streams as it is committed. In memory on this node;
// with several nodes a LiveRelay (src/cluster/live-relay.ts) carries events to the streams of
// the account open on other nodes, since a change happens on whichever node holds the phone.
import type { Permission } from '../api-keys/permissions.ts';

export interface LiveEvent {
  type: 'sms.status' | 'device.presence' | 'sms.received';
  /** The permission a stream needs to hear it. */
  permission: Permission;
  data: Record<string, unknown>;
}

export interface LiveStream {
  permissions: ReadonlySet<Permission>;
  send(event: LiveEvent): void;
  /** The gateway is stopping: end the stream. */
  end(): void;
}

/** Several nodes: events to and from the streams open on other nodes. */
export interface LiveRelay {
  /** Whether another node has a stream open for the account. */
  listening(accountId: string): boolean;
  /** The account's first stream on this node opened: tell the other nodes. */
  opened(accountId: string): void;
  forward(accountId: string, event: LiveEvent): void;
}

/** Streams one account may hold open at once: a panel opens one per tab. */
export const MAX_STREAMS_PER_ACCOUNT = 50;

export class LiveHub {
  private readonly streams = new Map<string, Set<LiveStream>>();

  /**
   * Someone may watch: a stream is open on this node, or other nodes are there to open one
   * (a relay; which accounts they watch changes any time). While nobody does, the wiring does not
   * listen at all: an SMS sent while no panel is open runs none of the live feed's code.
   */
  private watched: boolean;
  /** What the wiring listens with while someone watches, and how that listening stops. */
  private feed: { listen: () => () => void; stop?: (() => void) | undefined } | undefined;

  /** `relay`: several nodes, the streams open on the others. */
  constructor(private readonly relay?: LiveRelay) {
    this.watched = Boolean(relay);
  }

  /**
   * Hears the gateway's events only while someone watches: `listen` starts listening (at once, if
   * someone already does) and answers how to stop; it is stopped when the last stream closes and
   * started again with the next one.
   */
  whileWatched(listen: () => () => void): void {
    this.feed?.stop?.();
    this.feed = { listen, stop: this.watched ? listen() : undefined };
  }

  /** Adds a stream; false when the account already holds MAX_STREAMS_PER_ACCOUNT. */
  add(accountId: string, stream: LiveStream): boolean {
    let set = this.streams.get(accountId);
    if (!set) {
      this.streams.set(accountId, (set = new Set()));
      this.relay?.opened(accountId);
    }
    if (set.size >= MAX_STREAMS_PER_ACCOUNT) return false;
    set.add(stream);
    this.watchedNow(true);
    return true;
  }

  remove(accountId: string, stream: LiveStream): void {
    const set = this.streams.get(accountId);
    if (!set) return;
    set.delete(stream);
    if (set.size === 0) this.streams.delete(accountId);
    this.watchedNow(this.streams.size > 0 || Boolean(this.relay));
  }

  /** Whether anyone listens to the account: events for nobody are not even built. */
  listening(accountId: string): boolean {
    return this.streams.has(accountId) || (this.relay?.listening(accountId) ?? false);
  }

  /** Accounts with a stream open on this node. */
  accounts(): string[] {
    return [...this.streams.keys()];
  }

  publish(accountId: string, event: LiveEvent): void {
    this.deliver(accountId, event);
    if (this.relay?.listening(accountId)) this.relay.forward(accountId, event);
  }

  /** Hands an event to this node's streams only (one relayed from another node). */
  deliver(accountId: string, event: LiveEvent): void {
    for (const stream of this.streams.get(accountId) ?? []) {
      if (stream.permissions.has(event.permission)) stream.send(event);
    }
  }

  get size(): number {
    let total = 0;
    for (const set of this.streams.values()) total += set.size;
    return total;
  }

  endAll(): void {
    for (const set of this.streams.values()) for (const stream of set) stream.end();
    this.streams.clear();
    this.watchedNow(Boolean(this.relay));
  }

  /** Starts the wiring's listening with the first watcher, stops it with the last. */
  private watchedNow(watched: boolean): void {
    if (watched === this.watched) return;
    this.watched = watched;
    if (!this.feed) return;
    if (watched) this.feed.stop = this.feed.listen();
    else {
      this.feed.stop?.();
      this.feed.stop = undefined;
    }
  }
}
