// Live events for the control panel: each open stream subscribes to its account, and whatever
// happens in the account is handed to its streams as it is committed. In memory on this node: a
// stream hears what this node sees. With several nodes, that is what happens on this node only
// (the panel reloads its lists on navigation); relaying events between nodes is still to come.
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

/** Streams one account may hold open at once: a panel opens one per tab. */
export const MAX_STREAMS_PER_ACCOUNT = 50;

export class LiveHub {
  private readonly streams = new Map<string, Set<LiveStream>>();

  /** Adds a stream; false when the account already holds MAX_STREAMS_PER_ACCOUNT. */
  add(accountId: string, stream: LiveStream): boolean {
    let set = this.streams.get(accountId);
    if (!set) this.streams.set(accountId, (set = new Set()));
    if (set.size >= MAX_STREAMS_PER_ACCOUNT) return false;
    set.add(stream);
    return true;
  }

  remove(accountId: string, stream: LiveStream): void {
    const set = this.streams.get(accountId);
    if (!set) return;
    set.delete(stream);
    if (set.size === 0) this.streams.delete(accountId);
  }

  /** Whether anyone listens to the account: events for nobody are not even built. */
  listening(accountId: string): boolean {
    return this.streams.has(accountId);
  }

  publish(accountId: string, event: LiveEvent): void {
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
  }
}
