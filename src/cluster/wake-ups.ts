// Tells the other nodes that work is waiting, so that an SMS created through node B reaches a
// phone connected to node A at once instead of at A's next sweep (about a second later).
//
// Redis pub/sub rather than PostgreSQL LISTEN/NOTIFY: measured on this machine both deliver in
// well under a millisecond (scripts/bench/wake-up.ts), and a wake-up is only a hint: the SMS is
// committed before it is sent, and each node's sweep finds due work whatever happens to the
// hint. The Redis link is already open for cache invalidation, while NOTIFY would need one more
// PostgreSQL connection per node, held forever outside the pool.
//
// Wake-ups are gathered for one event-loop turn and sent as one message: a bulk request of 1,000
// SMS for one account is one message, not 1,000. A message names accounts (their shared pool)
// and devices (SMS their clients named them for), nothing else.
import { randomUUID } from 'node:crypto';
import type { Logger } from '../common/logger.ts';
import { isUuid } from '../common/object-id.ts';
import type { RedisLink } from './redis.ts';
import { readJsonObject } from './json-message.ts';

export interface WorkArrived {
  accountIds: string[];
  deviceIds: string[];
}

/** An SMS queued on this node: for its account's pool, or for the device its client named. */
export interface QueuedSms {
  account_id: string;
  device_id: string | null;
}

/** At most this many ids per message; more are sent in several. */
const IDS_PER_MESSAGE = 500;

export class ClusterWakeUps {
  private readonly from = randomUUID();
  private readonly accounts = new Set<string>();
  private readonly devices = new Set<string>();
  private scheduled = false;
  private readonly channel: string;

  constructor(
    private readonly link: RedisLink,
    prefix: string,
    private readonly logger: Logger,
  ) {
    this.channel = `${prefix}:work`;
  }

  /** An SMS was queued here: the other nodes are woken for it (with the others queued in the same turn). */
  queued(sms: QueuedSms): void {
    if (sms.device_id) this.devices.add(sms.device_id);
    else this.accounts.add(sms.account_id);
    this.schedule();
  }

  /** Hands the other nodes' new work to `onWork`. */
  async start(onWork: (work: WorkArrived) => void): Promise<void> {
    this.link.onMessage((channel, raw) => {
      if (channel !== this.channel) return;
      const work = parse(raw, this.from);
      if (work === 'own') return;
      if (!work) return void this.logger.warn({ bytes: raw.length }, 'malformed wake-up message ignored');
      onWork(work);
    });
    const subscribed = this.link.subscribe(this.channel);
    if (this.link.up) await subscribed;
    else subscribed.catch(() => undefined);
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      const accountIds = [...this.accounts];
      const deviceIds = [...this.devices];
      this.accounts.clear();
      this.devices.clear();
      for (let i = 0; i < Math.max(accountIds.length, deviceIds.length); i += IDS_PER_MESSAGE) {
        const message = { from: this.from, accounts: accountIds.slice(i, i + IDS_PER_MESSAGE), devices: deviceIds.slice(i, i + IDS_PER_MESSAGE) };
        this.link.publish(this.channel, JSON.stringify(message));
      }
    });
  }
}

function parse(raw: string, self: string): WorkArrived | 'own' | undefined {
  const value = readJsonObject(raw, 64 * 1024);
  if (!value) return undefined;
  const { from, accounts, devices } = value;
  if (typeof from !== 'string') return undefined;
  if (from === self) return 'own';
  const ids = (list: unknown) => (Array.isArray(list) && list.length <= IDS_PER_MESSAGE && list.every((id) => typeof id === 'string' && isUuid(id)) ? (list as string[]) : undefined);
  const accountIds = ids(accounts);
  const deviceIds = ids(devices);
  if (!accountIds || !deviceIds) return undefined;
  return { accountIds, deviceIds };
}
