// Which node holds which phone, for several nodes sharing a Redis.
//
// - Each node keeps one lease, `<prefix>:node:<instance>`, that it renews every third of
//   PRESENCE_LEASE. A node killed with -9 stops renewing; once its lease has run out another
//   node (the first to take `<prefix>:reap:<instance>`) announces its phones offline, once:
//   device.offline webhooks, the retained presence "offline", and the time failover counts from.
// - Each phone connected anywhere has `<prefix>:presence:<device id>` = "instance|account|token",
//   written when its CONNECT is accepted (before Aedes announces the new client, so the node
//   that held the old connection sees the new owner when it closes it), and removed when the
//   connection ends, only if it still names that very connection. A phone that moved is thus
//   told from a phone that went away: the move is silent, no offline and online announced. A
//   node that stops keeps its claims and lets its lease run out, so that a rolling restart
//   moves its phones to the other nodes without an offline and online for each.
// - Every claim, release and reaping is also published on `<prefix>:presence`; each node keeps
//   a map of the phones other nodes hold (loaded with SCAN at start and whenever Redis comes
//   back), so "is it online" stays a memory lookup for GET /devices and for failover.
//
// A phone connected to another node counts online while that node's lease lives: whether it
// has gone silent there (DEVICE_OFFLINE_AFTER) is known to its own node only.
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Logger } from '../common/logger.ts';
import type { Clock } from '../common/clock.ts';
import { isUuid } from '../common/object-id.ts';
import type { RemotePresence } from '../modules/devices/remote-presence.ts';
import { RECONNECT_MAX_MS, type RedisLink } from './redis.ts';
import { readJsonObject } from './json-message.ts';

/** Replaces the phone's entry; answers the one it replaced, and files the phone under this node. */
const CLAIM = `local previous = redis.call('GET', KEYS[1])
redis.call('SET', KEYS[1], ARGV[1])
redis.call('SADD', KEYS[2], ARGV[2])
return previous`;
/** Removes the phone's entry if it still is `ARGV[1]`; 1 when removed. */
const RELEASE = `redis.call('SREM', KEYS[2], ARGV[2])
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) return 1 end
return 0`;
/** Removes the phone's entry if it names the instance `ARGV[1]`; answers the removed entry. */
const REAP = `local value = redis.call('GET', KEYS[1])
if value and string.sub(value, 1, string.len(ARGV[1]) + 1) == ARGV[1] .. '|' then redis.call('DEL', KEYS[1]) return value end
return false`;

/** Phones read per SCAN round trip when loading the map. */
const SCAN_COUNT = 1000;

interface Holder {
  instance: string;
  accountId: string;
}

interface Message {
  instance: string;
  device: string;
  account: string;
  online: boolean;
  at: number;
}

/** The result of a claim: `moved` when another node held the phone's previous connection. */
export type Claim = { token: string; moved: boolean };

/** What this node's presence hears from the cluster: phones of dead nodes, and restatements of its own. */
export interface LocalPresence {
  /** A phone of a node whose lease ran out: offline since `at`. */
  announceOffline(deviceId: string, accountId: string, at: number): void;
  /** A phone connected here, announced offline by the other nodes while they could not hear this one. */
  announceOnline(deviceId: string, accountId: string): void;
  /** Phones connected here whose retained presence is to be written again. */
  reaffirm(deviceIds: string[]): void;
}

export class ClusterPresence implements RemotePresence {
  /** This process: NODE_ID plus a random part, so that two nodes given one NODE_ID by mistake stay apart. */
  readonly instance: string;
  private readonly held = new Map<string, Holder>();
  private readonly offline = new Map<string, number>();
  private liveNodes = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;
  private loaded = false;
  /**
   * No node is reaped before then: after an outage every lease has run out, and the nodes come
   * back one by one; each gets a lease's time to renew before it is taken for dead.
   */
  private reapFrom = 0;
  /** When this node first found each other node's lease gone: its phones are offline since. */
  private readonly deadSince = new Map<string, number>();
  /** Presence messages that arrived while a load was reading the map, applied again after it. */
  private duringLoad: Message[] | undefined;
  /** Load the map once more at the next tick: a message may have been published before the resubscribe. */
  private reloadNext = false;
  /** Phones claimed since the last tick: their retained presence is written again then (below). */
  private readonly claimedSinceTick = new Set<string>();
  /**
   * The connections this node holds, to claim again after an outage; `registered` once Redis
   * has the claim (a phone that connected while Redis was down has not been).
   */
  private readonly mine = new Map<string, { accountId: string; token: string; registered: boolean }>();
  private readonly channel: string;
  /** This node's presence, told from start() on. */
  private local: LocalPresence = IGNORING;

  constructor(
    private readonly link: RedisLink,
    private readonly prefix: string,
    nodeId: string,
    private readonly leaseMs: number,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {
    this.instance = `${nodeId}~${randomBytes(4).toString('hex')}`;
    this.channel = `${prefix}:presence`;
  }

  get current(): boolean {
    return this.link.up && this.loaded;
  }

  private get redis(): Redis {
    return this.link.client;
  }

  /** Joins: renews this node's lease from now on, and tells `local` what the other nodes say. */
  async start(local: LocalPresence): Promise<void> {
    this.local = local;
    this.link.onMessage((channel, raw) => {
      if (channel === this.channel) this.receive(raw);
    });
    this.link.onBack(() => {
      // The others reconnect on their own backoff (at most RECONNECT_MAX_MS apart), then renew.
      this.reapFrom = this.clock.now() + this.leaseMs + RECONNECT_MAX_MS;
      this.reloadNext = true;
      void this.tick(true);
    });
    const subscribed = this.link.subscribe(this.channel);
    if (this.link.up) await subscribed;
    else subscribed.catch(() => undefined);
    await this.tick(false);
    this.timer = setInterval(() => void this.tick(false), Math.max(500, Math.floor(this.leaseMs / 3)));
    this.timer.unref();
  }

  /**
   * Stops renewing. The lease is not given up: the phones of a stopping node keep their claims
   * (broker/takeover.ts), so that those reconnecting to another node within the lease move there
   * silently, and the others are announced offline by the node that reaps this one.
   */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.ticking;
  }

  // What the broker tells ---------------------------------------------------------------------

  /** The phone's CONNECT was accepted here. Never throws: without Redis, the phone is simply this node's. */
  async claim(deviceId: string, accountId: string): Promise<Claim> {
    const token = randomBytes(6).toString('hex');
    const mine = { accountId, token, registered: false };
    this.mine.set(deviceId, mine);
    if (!this.link.up) return { token, moved: false };
    try {
      const previous = (await this.redis.eval(CLAIM, 2, this.key('presence', deviceId), this.key('node-devices', this.instance), this.value(accountId, token), deviceId)) as string | null;
      mine.registered = true;
      this.claimedSinceTick.add(deviceId);
      this.publish({ instance: this.instance, device: deviceId, account: accountId, online: true, at: this.clock.now() });
      const holder = previous ? parseValue(previous) : undefined;
      // Another node's entry, alive or not yet reaped: the phone was never announced offline, so
      // it moves. (Reaping removes the entries of a dead node once it has announced them offline.)
      return { token, moved: holder !== undefined && holder.instance !== this.instance };
    } catch (error) {
      this.logger.debug({ err: error, deviceId }, 'presence not claimed in Redis');
      return { token, moved: false };
    }
  }

  /**
   * The phone's connection `token` here ended: 'moved' when another connection (on another node,
   * or a newer one here) has replaced it, so that no offline is to be announced.
   */
  async release(deviceId: string, accountId: string, token: string): Promise<'released' | 'moved'> {
    const mine = this.mine.get(deviceId);
    if (mine?.token === token) this.mine.delete(deviceId);
    if (!this.link.up) return 'released';
    try {
      const removed = await this.redis.eval(RELEASE, 2, this.key('presence', deviceId), this.key('node-devices', this.instance), this.value(accountId, token), deviceId);
      if (removed !== 1) return 'moved';
      this.publish({ instance: this.instance, device: deviceId, account: accountId, online: false, at: this.clock.now() });
      return 'released';
    } catch {
      return 'released';
    }
  }

  /** Whether the connection `token` is still the phone's (false once another node took it over). Redis down: yes. */
  async stillHolds(deviceId: string, accountId: string, token: string): Promise<boolean> {
    if (!this.link.up) return true;
    try {
      return (await this.redis.get(this.key('presence', deviceId))) === this.value(accountId, token);
    } catch {
      return true;
    }
  }

  /** For /metrics: nodes whose lease was alive at the last check, and phones they hold. */
  get counts(): { nodes: number; phonesElsewhere: number } {
    let phonesElsewhere = 0;
    for (const holder of this.held.values()) if (holder.instance !== this.instance && this.liveNodes.has(holder.instance)) phonesElsewhere++;
    return { nodes: this.liveNodes.size, phonesElsewhere };
  }

  // RemotePresence ------------------------------------------------------------------------------

  isOnline(deviceId: string): boolean {
    // Cut off from the other nodes, this node cannot vouch for their phones.
    if (!this.current) return false;
    const holder = this.held.get(deviceId);
    return holder !== undefined && holder.instance !== this.instance && this.liveNodes.has(holder.instance);
  }

  /** Phones of the account that other live nodes hold now. */
  heldElsewhere(accountId: string): string[] {
    if (!this.current) return [];
    const ids: string[] = [];
    for (const [deviceId, holder] of this.held) {
      if (holder.accountId === accountId && holder.instance !== this.instance && this.liveNodes.has(holder.instance)) ids.push(deviceId);
    }
    return ids;
  }

  /** The live node holding the phone, if another node does. */
  holderOf(deviceId: string): string | undefined {
    return this.isOnline(deviceId) ? this.held.get(deviceId)!.instance : undefined;
  }

  offlineSince(deviceId: string): number | undefined {
    const known = this.offline.get(deviceId);
    if (known !== undefined) return known;
    // Held by a node whose lease is gone and which is not reaped yet: offline since it was found so.
    const holder = this.held.get(deviceId);
    return holder ? this.deadSince.get(holder.instance) : undefined;
  }

  // Lease, reaping, and the map ---------------------------------------------------------------

  private tick(reload: boolean): Promise<void> {
    if (this.ticking) return this.ticking;
    this.ticking = this.renewAndReap(reload)
      .catch((error: unknown) => this.logger.debug({ err: error }, 'presence lease not renewed'))
      .finally(() => (this.ticking = undefined));
    return this.ticking;
  }

  private async renewAndReap(reload: boolean): Promise<void> {
    if (!this.link.up) return;
    const [[, had]] = (await this.redis
      .multi()
      .set(this.key('node', this.instance), '1', 'PX', this.leaseMs, 'GET')
      .sadd(this.key('nodes'), this.instance)
      .exec()) as [[Error | null, string | null], unknown];
    // Back after an outage, or the lease ran out meanwhile: what Redis holds for this node may be
    // stale (phones that left, phones that came, phones other nodes announced offline).
    if (reload || had === null) await this.reassert();
    else this.reaffirmClaimed();
    const nodes = await this.redis.smembers(this.key('nodes'));
    const leases = nodes.length > 0 ? await this.redis.mget(nodes.map((node) => this.key('node', node))) : [];
    const now = this.clock.now();
    this.liveNodes = new Set(nodes.filter((_, i) => leases[i] !== null));
    this.liveNodes.add(this.instance);
    for (const node of nodes) {
      if (this.liveNodes.has(node)) this.deadSince.delete(node);
      // Not before reaping may start: failover must not count from a lease that ran out in an outage.
      else if (!this.deadSince.has(node)) this.deadSince.set(node, Math.max(now, this.reapFrom));
    }
    if (now >= this.reapFrom) for (const node of nodes) if (!this.liveNodes.has(node)) await this.reap(node);
    const again = this.reloadNext && !reload;
    if (again) this.reloadNext = false;
    if (reload || again || !this.loaded) await this.load();
  }

  /**
   * Writes the retained presence of the phones claimed since the last tick once more. A phone
   * that left node A for node B may have A's "offline" land in Redis after B's "online" (two
   * nodes, no order between them): this puts B's word last, within a tick.
   */
  private reaffirmClaimed(): void {
    const ids = [...this.claimedSinceTick].filter((deviceId) => this.mine.has(deviceId));
    this.claimedSinceTick.clear();
    if (ids.length > 0) this.local.reaffirm(ids);
  }

  /** Announces the phones of a node whose lease ran out offline, unless another node does so already. */
  private async reap(node: string): Promise<void> {
    const taken = await this.redis.set(this.key('reap', node), this.instance, 'PX', this.leaseMs, 'NX');
    if (taken !== 'OK') return;
    const devices = await this.redis.smembers(this.key('node-devices', node));
    const at = this.clock.now();
    let announced = 0;
    const batch = this.redis.pipeline();
    for (const deviceId of devices) batch.eval(REAP, 1, this.key('presence', deviceId), node);
    const results = devices.length > 0 ? ((await batch.exec()) ?? []) : [];
    devices.forEach((deviceId, i) => {
      const value = results[i]?.[1] as string | null | undefined;
      const holder = value ? parseValue(value) : undefined;
      if (!holder) return;
      announced++;
      this.forget(deviceId, node, at);
      this.local.announceOffline(deviceId, holder.accountId, at);
      this.publish({ instance: node, device: deviceId, account: holder.accountId, online: false, at });
    });
    await this.redis.multi().del(this.key('node-devices', node)).srem(this.key('nodes'), node).exec();
    // A node that stopped cleanly released its phones itself: nothing to say.
    if (announced > 0) this.logger.warn({ deadNode: node, devices: announced }, "a node's lease ran out: its phones are offline until they reconnect");
  }

  /**
   * Makes Redis agree with this node again: every phone connected here claimed (and announced
   * online again where other nodes had announced it offline), every phone that left meanwhile
   * released (its offline was announced here when it left).
   */
  private async reassert(): Promise<void> {
    const listed = await this.redis.smembers(this.key('node-devices', this.instance));
    const left = listed.filter((deviceId) => !this.mine.has(deviceId));
    const at = this.clock.now();
    if (left.length > 0) {
      const batch = this.redis.pipeline();
      for (const deviceId of left) batch.eval(REAP, 1, this.key('presence', deviceId), this.instance);
      batch.srem(this.key('node-devices', this.instance), ...left);
      const results = (await batch.exec()) ?? [];
      left.forEach((deviceId, i) => {
        const holder = results[i]?.[1] ? parseValue(results[i]![1] as string) : undefined;
        if (holder) this.publish({ instance: this.instance, device: deviceId, account: holder.accountId, online: false, at });
      });
    }
    const claims = [...this.mine];
    this.claimedSinceTick.clear();
    if (claims.length === 0) return;
    const batch = this.redis.pipeline();
    for (const [deviceId, { accountId, token }] of claims) {
      batch.eval(CLAIM, 2, this.key('presence', deviceId), this.key('node-devices', this.instance), this.value(accountId, token), deviceId);
    }
    const results = (await batch.exec()) ?? [];
    claims.forEach(([deviceId, mine], i) => {
      const [error, previous] = results[i] ?? [new Error('no reply'), null];
      if (error) return;
      this.publish({ instance: this.instance, device: deviceId, account: mine.accountId, online: true, at });
      // Announced online when it connected; since then another node announced it offline.
      if (previous === null && mine.registered) this.local.announceOnline(deviceId, mine.accountId);
      mine.registered = true;
    });
    // Retained presence written while Redis was down was lost, and another node may have written
    // "offline" meanwhile: every phone here states where it stands again (no webhooks).
    this.local.reaffirm(claims.map(([deviceId]) => deviceId));
  }

  /** Reads who holds every phone: at start, and after an outage in which messages were missed. */
  private async load(): Promise<void> {
    this.duringLoad = [];
    try {
      await this.readMap();
    } finally {
      this.duringLoad = undefined;
    }
  }

  private async readMap(): Promise<void> {
    const held = new Map<string, Holder>();
    let cursor = '0';
    const pattern = `${this.key('presence', '').replace(/[*?[\]\\]/g, '\\$&')}*`;
    do {
      const [next, keys] = await this.redis.scan(cursor, 'MATCH', pattern, 'COUNT', SCAN_COUNT);
      cursor = next;
      if (keys.length === 0) continue;
      const values = await this.redis.mget(keys);
      keys.forEach((key, i) => {
        const holder = values[i] ? parseValue(values[i]!) : undefined;
        const deviceId = key.slice(this.key('presence', '').length);
        if (holder && isUuid(deviceId)) held.set(deviceId, holder);
      });
    } while (cursor !== '0');
    this.held.clear();
    for (const [deviceId, holder] of held) this.held.set(deviceId, holder);
    // What changed while the map was read is newer than what the read found.
    for (const message of this.duringLoad ?? []) this.apply(message);
    this.loaded = true;
  }

  private receive(raw: string): void {
    const message = parseMessage(raw);
    if (!message) return void this.logger.warn({ bytes: raw.length }, 'malformed presence message ignored');
    this.duringLoad?.push(message);
    this.apply(message);
  }

  private apply(message: Message): void {
    if (message.online) {
      this.held.set(message.device, { instance: message.instance, accountId: message.account });
      // A node that has just spoken is alive, though it started after this node's last lease check.
      this.liveNodes.add(message.instance);
      this.offline.delete(message.device);
    } else {
      this.forget(message.device, message.instance, message.at);
    }
  }

  private forget(deviceId: string, instance: string, at: number): void {
    if (this.held.get(deviceId)?.instance !== instance) return;
    this.held.delete(deviceId);
    this.offline.set(deviceId, at);
    // Bounded: an old offline time only matters to failover, which needs FAILOVER_AFTER of it.
    if (this.offline.size > 200_000) this.offline.clear();
  }

  private publish(message: Message): void {
    this.link.publish(this.channel, JSON.stringify(message));
  }

  private key(...parts: string[]): string {
    return [this.prefix, ...parts].join(':');
  }

  private value(accountId: string, token: string): string {
    return `${this.instance}|${accountId}|${token}`;
  }
}

/** Before start(): nothing is heard yet, so nothing is told. */
const IGNORING: LocalPresence = { announceOffline: () => {}, announceOnline: () => {}, reaffirm: () => {} };

function parseValue(value: string): Holder | undefined {
  const [instance, accountId] = value.split('|');
  return instance && accountId ? { instance, accountId } : undefined;
}

function parseMessage(raw: string): Message | undefined {
  const value = readJsonObject(raw, 512);
  if (!value) return undefined;
  const { instance, device, account, online, at } = value;
  if (typeof instance !== 'string' || instance.length > 100 || typeof online !== 'boolean' || typeof at !== 'number' || !Number.isFinite(at)) return undefined;
  if (typeof device !== 'string' || !isUuid(device) || typeof account !== 'string' || !isUuid(account)) return undefined;
  return { instance, device, account, online, at };
}
