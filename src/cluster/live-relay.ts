// Carries the control panel's live events between nodes. A panel's event stream is open on one
// node while its account's phones report to others: the change happens where the phone is.
//
// Only accounts someone watches cost anything. Each node with a stream open for an account keeps
// `<prefix>:live:<account>` alive in Redis (renewed every few seconds), announces a new one at
// once, and every node reloads the set of watched accounts now and then. An event of a watched
// account is published on `<prefix>:live`, gathered for one event-loop turn, and every other node
// hands it to its own streams of that account (permissions are checked there, per stream).
//
// While Redis is down a stream hears what happens on its own node only, as before several nodes.
import { randomUUID } from 'node:crypto';
import type { Logger } from '../common/logger.ts';
import { isUuid } from '../common/object-id.ts';
import type { LiveEvent, LiveRelay } from '../modules/live/hub.ts';
import type { RedisLink } from './redis.ts';
import { readJsonObject } from './json-message.ts';

/** How often a node renews its watched accounts and reloads everyone's. */
const REFRESH_MS = 3_000;
/** A watched account's key outlives its last renewal by this much. */
const WATCH_TTL_MS = 10_000;
const EVENT_TYPES: ReadonlySet<string> = new Set(['sms.status', 'device.presence', 'sms.received']);
const MAX_MESSAGE_BYTES = 256 * 1024;

/** This node's live streams, which the relay feeds and whose accounts it keeps watched. */
export interface LocalLiveStreams {
  /** Accounts with a stream open on this node. */
  accounts(): string[];
  /** Hands an event relayed from another node to this node's streams of the account. */
  deliver(accountId: string, event: LiveEvent): void;
}

interface Relayed {
  account: string;
  event: LiveEvent;
}

export class ClusterLiveRelay implements LiveRelay {
  private readonly from = randomUUID();
  private watched = new Set<string>();
  private pending: Relayed[] = [];
  private timer: NodeJS.Timeout | undefined;
  private readonly channel: string;
  /** This node's streams, fed from start() on. */
  private local: LocalLiveStreams = { accounts: () => [], deliver: () => {} };

  constructor(
    private readonly link: RedisLink,
    private readonly prefix: string,
    private readonly logger: Logger,
  ) {
    this.channel = `${prefix}:live`;
  }

  async start(local: LocalLiveStreams): Promise<void> {
    this.local = local;
    this.link.onMessage((channel, raw) => {
      if (channel === this.channel) this.receive(raw);
    });
    const subscribed = this.link.subscribe(this.channel);
    if (this.link.up) await subscribed;
    else subscribed.catch(() => undefined);
    await this.refresh();
    this.timer = setInterval(() => void this.refresh(), REFRESH_MS);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  listening(accountId: string): boolean {
    return this.watched.has(accountId);
  }

  opened(accountId: string): void {
    void this.watch([accountId]);
    this.publish({ from: this.from, watch: accountId });
  }

  forward(accountId: string, event: LiveEvent): void {
    if (this.pending.length === 0) setImmediate(() => this.flush());
    this.pending.push({ account: accountId, event });
  }

  private flush(): void {
    const events = this.pending;
    this.pending = [];
    if (events.length > 0) this.publish({ from: this.from, events });
  }

  /** Renews this node's watched accounts, and reads every node's. */
  private async refresh(): Promise<void> {
    if (!this.link.up) return;
    try {
      await this.watch(this.local.accounts());
      const watched = new Set<string>();
      const start = `${this.prefix}:live:`;
      let cursor = '0';
      do {
        const [next, keys] = await this.link.client.scan(cursor, 'MATCH', `${start.replace(/[*?[\]\\]/g, '\\$&')}*`, 'COUNT', 1000);
        cursor = next;
        for (const key of keys) watched.add(key.slice(start.length));
      } while (cursor !== '0');
      this.watched = watched;
    } catch (error) {
      this.logger.debug({ err: error }, 'watched accounts not refreshed');
    }
  }

  private async watch(accountIds: string[]): Promise<void> {
    if (accountIds.length === 0 || !this.link.up) return;
    const batch = this.link.client.multi();
    for (const accountId of accountIds) batch.set(`${this.prefix}:live:${accountId}`, '1', 'PX', WATCH_TTL_MS);
    await batch.exec().catch(() => undefined);
  }

  private publish(message: object): void {
    this.link.publish(this.channel, JSON.stringify(message));
  }

  private receive(raw: string): void {
    const message = parse(raw);
    if (!message) return void this.logger.warn({ bytes: raw.length }, 'malformed live event message ignored');
    if (message.from === this.from) return;
    if ('watch' in message) {
      this.watched.add(message.watch);
      return;
    }
    for (const { account, event } of message.events) this.local.deliver(account, event);
  }
}

type Message = { from: string; watch: string } | { from: string; events: Relayed[] };

function parse(raw: string): Message | undefined {
  const value = readJsonObject(raw, MAX_MESSAGE_BYTES);
  if (!value) return undefined;
  const { from, watch, events } = value;
  if (typeof from !== 'string') return undefined;
  if (typeof watch === 'string') return isUuid(watch) ? { from, watch } : undefined;
  if (!Array.isArray(events) || !events.every(isRelayed)) return undefined;
  return { from, events };
}

function isRelayed(value: unknown): value is Relayed {
  if (typeof value !== 'object' || value === null) return false;
  const { account, event } = value as Record<string, unknown>;
  if (typeof account !== 'string' || !isUuid(account) || typeof event !== 'object' || event === null) return false;
  const { type, permission, data } = event as Record<string, unknown>;
  return typeof type === 'string' && EVENT_TYPES.has(type) && typeof permission === 'string' && typeof data === 'object' && data !== null;
}
