// Tells the other nodes that something they may have cached changed here, so that a revoked key,
// a deleted device, changed settings or changed webhooks take effect on every node at once rather
// than when each node's cache runs out (5 s).
//
// Every service that caches publishes its own changes (`publish`); what other nodes publish enters
// the event seam as cache.changed_elsewhere (and cache.news_missed when messages may have been
// lost), relayed there by the core feature, and each cache's feature drops what it names. Without Redis (a single node) publishing does nothing: the node
// that made the change has already dropped its own entry. With Redis, the message goes to every
// node over pub/sub, and each node other than the sender drops its entry.
//
// A message names the kind and an id, nothing else: no key material, no settings, no addresses;
// the receiving node reads what it needs from the database. Messages published while a node was
// cut off from Redis never reach it, and it cannot know which: when Redis is back it drops every
// cache entry (`onReset`), and the next request of each reads the database afresh.
import { randomUUID } from 'node:crypto';
import type { Logger } from '../common/logger.ts';
import { isUuid } from '../common/object-id.ts';
import type { RedisLink } from './redis.ts';
import { readJsonObject } from './json-message.ts';

/**
 * device_deleted: the device's credentials were revoked, by deleting the device or replacing its
 * token; the receiving node tells which from the row. (One kind for both: a node of an older
 * version, in a rolling restart, reads a live row and does nothing, rather than dropping a kind it
 * does not know as malformed.)
 */
export const CACHE_KINDS = ['api_key', 'account', 'device_settings', 'device_deleted', 'webhooks', 'smpp_credential', 'opt_out_list'] as const;
export type CacheKind = (typeof CACHE_KINDS)[number];

/** What each kind's id is: an API key's public prefix, or the row's UUID. */
const ID_SHAPES: Record<CacheKind, (id: string) => boolean> = {
  api_key: (id) => /^sgw_[0-9a-f]{10}$/.test(id),
  account: isUuid,
  device_settings: isUuid,
  device_deleted: isUuid,
  webhooks: isUuid,
  // An SMPP credential revoked: its sessions on every node are unbound.
  smpp_credential: isUuid,
  // An account's suppression list changed: the hashed list its phones get is computed afresh.
  opt_out_list: isUuid,
};

interface Message {
  /**
   * The process that made the change (it does not act on its own message). Not NODE_ID: two
   * nodes given the same one by mistake must still hear each other.
   */
  from: string;
  kind: CacheKind;
  id: string;
}

export class CacheInvalidation {
  private readonly handlers = new Map<CacheKind, ((id: string) => void)[]>();
  private readonly resetHandlers: (() => void)[] = [];
  private readonly link: RedisLink | undefined;
  private readonly channel: string;
  private readonly instance = randomUUID();

  /**
   * `shared`: the Redis the nodes share, and REDIS_PREFIX (which keeps deployments sharing one
   * Redis apart); none for a single node, where publishing does nothing.
   */
  constructor(
    private readonly logger: Logger,
    shared?: { link: RedisLink; prefix: string },
  ) {
    this.link = shared?.link;
    this.channel = shared ? `${shared.prefix}:cache-invalidation` : '';
  }

  /** Registers what this node drops when another node changes a `kind` with this id. */
  on(kind: CacheKind, handler: (id: string) => void): void {
    const list = this.handlers.get(kind) ?? [];
    list.push(handler);
    this.handlers.set(kind, list);
  }

  /** Registers how to drop a whole cache, for when this node may have missed messages. */
  onReset(handler: () => void): void {
    this.resetHandlers.push(handler);
  }

  /** Tells the other nodes; a no-op without Redis, or while it is down. Never throws. */
  publish(kind: CacheKind, id: string): void {
    if (!this.link) return;
    const message: Message = { from: this.instance, kind, id };
    this.link.publish(this.channel, JSON.stringify(message));
  }

  /** Hears the other nodes' changes from now on; nothing for a single node. */
  async start(): Promise<void> {
    const { link } = this;
    if (!link) return;
    link.onMessage((channel, raw) => {
      if (channel === this.channel) this.receive(raw);
    });
    link.onBack(() => this.reset());
    const subscribed = link.subscribe(this.channel);
    // Redis down at start: the subscription is made (and repeated) whenever it comes back.
    if (link.up) await subscribed;
    else subscribed.catch((error: unknown) => this.logger.warn({ err: error }, 'cache invalidation not subscribed'));
  }

  /** Drops every cache: messages may have been missed. */
  reset(): void {
    this.logger.info('caches dropped: changes made on other nodes while Redis was unreachable are read afresh');
    for (const handler of this.resetHandlers) this.run(handler, 'reset');
  }

  private receive(raw: string): void {
    const message = parse(raw);
    // Anyone who can publish to this Redis can send anything: only well-formed messages act.
    if (!message) {
      this.logger.warn({ bytes: raw.length }, 'malformed cache invalidation message ignored');
      return;
    }
    if (message.from === this.instance) return;
    for (const handler of this.handlers.get(message.kind) ?? []) this.run(() => handler(message.id), message.kind);
  }

  private run(handler: () => void, kind: string): void {
    try {
      handler();
    } catch (error) {
      this.logger.error({ err: error, kind }, 'cache invalidation handler failed');
    }
  }
}

function parse(raw: string): Message | undefined {
  const value = readJsonObject(raw, 512);
  if (!value) return undefined;
  const { from, kind, id } = value;
  if (typeof from !== 'string' || typeof kind !== 'string' || typeof id !== 'string') return undefined;
  if (!(CACHE_KINDS as readonly string[]).includes(kind)) return undefined;
  if (!ID_SHAPES[kind as CacheKind](id)) return undefined;
  return { from, kind: kind as CacheKind, id };
}
