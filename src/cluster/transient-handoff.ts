// no_store SMS across nodes. Such an SMS is never written to the database: it
// lives in the memory of the node whose phone sends it, which hears the phone's reports. When the
// request lands on a node with no phone of the account, the node reserves a slot on a phone of
// another node (in PostgreSQL, under the device row lock, as for its own phones) and hands the SMS
// over on `<prefix>:transient`, naming that node; the node takes it into its memory and sends the
// task. From then on it is that node's, as if the request had reached it.
//
// As for a phone on the same node, the hand-over happens after the answer is decided: a node that
// dies in between loses the SMS, as a phone that drops right after its slot was reserved would.
// The message text crosses Redis pub/sub, which keeps nothing; it is never logged.
import type { Logger } from '../common/logger.ts';
import type { Metrics } from '../common/metrics.ts';
import { isUuid } from '../common/object-id.ts';
import type { HandedOverSms, TransientHandOff } from '../modules/delivery/dispatcher.ts';
import type { ClusterPresence } from './presence.ts';
import type { RedisLink } from './redis.ts';
import { readJsonObject } from './json-message.ts';

const DATE_FIELDS = ['send_at', 'expires_at', 'dispatched_at', 'created_at', 'updated_at'] as const;
const MAX_MESSAGE_BYTES = 256 * 1024;

export class ClusterTransientHandOff implements TransientHandOff {
  private readonly channel: string;

  constructor(
    private readonly link: RedisLink,
    prefix: string,
    private readonly presence: ClusterPresence,
    private readonly metrics: Metrics,
    private readonly logger: Logger,
  ) {
    this.channel = `${prefix}:transient`;
  }

  /** Takes the SMS handed to this node; `accept` sends it to its phone, false if the phone is no longer here. */
  async start(accept: (sms: HandedOverSms) => boolean): Promise<void> {
    this.link.onMessage((channel, raw) => {
      if (channel !== this.channel) return;
      const message = parse(raw);
      if (!message) return void this.logger.warn({ bytes: raw.length }, 'malformed no_store hand-over ignored');
      if (message.to !== this.presence.instance) return;
      if (!accept(message.sms)) {
        this.count('phone_gone');
        this.logger.warn({ deviceId: message.sms.device_id, smsId: message.sms.id }, 'no_store SMS handed over for a phone no longer connected here: not sent');
      }
    });
    const subscribed = this.link.subscribe(this.channel);
    if (this.link.up) await subscribed;
    else subscribed.catch(() => undefined);
  }

  candidates(accountId: string, deviceId?: string): string[] {
    return this.presence.heldElsewhere(accountId).filter((id) => !deviceId || id === deviceId);
  }

  hand(sms: HandedOverSms): void {
    const to = sms.device_id ? this.presence.holderOf(sms.device_id) : undefined;
    if (!to || !this.link.up) {
      this.count('no_route');
      this.logger.warn({ deviceId: sms.device_id, smsId: sms.id }, 'no_store SMS could not be handed to the node holding its phone: not sent');
      return;
    }
    this.link.publish(this.channel, JSON.stringify({ to, sms }));
    this.count('sent');
  }

  private count(outcome: 'sent' | 'no_route' | 'phone_gone'): void {
    this.metrics.count('cluster_transient_handoffs_total', 'no_store SMS handed to the node holding their phone, by outcome', { outcome });
  }
}

function parse(raw: string): { to: string; sms: HandedOverSms } | undefined {
  const value = readJsonObject(raw, MAX_MESSAGE_BYTES);
  if (!value) return undefined;
  const { to, sms } = value;
  if (typeof to !== 'string' || typeof sms !== 'object' || sms === null) return undefined;
  const record = { ...(sms as Record<string, unknown>) };
  const ids = ['id', 'account_id', 'device_id'].every((field) => typeof record[field] === 'string' && isUuid(record[field] as string));
  if (!ids || typeof record.phone !== 'string' || typeof record.message !== 'string' || typeof record.object_id !== 'string') return undefined;
  for (const field of DATE_FIELDS) {
    const raw = record[field];
    if (raw === null || raw === undefined) {
      record[field] = null;
      continue;
    }
    const date = new Date(String(raw));
    if (Number.isNaN(date.getTime())) return undefined;
    record[field] = date;
  }
  return { to, sms: record as unknown as HandedOverSms };
}
