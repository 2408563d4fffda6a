// SMS received by the account's phones (forwarded only when forward_incoming_sms is on).
import { randomUUID } from 'node:crypto';
import type { Database } from '../../storage/database.ts';
import type { Cursor } from '../../storage/paging.ts';
import type { DomainEvents } from '../../events/domain-events.ts';
import type { IncomingEvents } from './domain-events.ts';
import * as incoming from './repository.ts';

export interface ReceivedSms {
  deviceMessageId: string;
  phone: string;
  message: string;
  receivedAt: Date;
  simSlot: number | null;
  /** phone and message are end-to-end ciphertext from the phone: stored and passed on as they are. */
  isEncrypted?: boolean;
}

/**
 * The gateway's own SMS coming back: a fleet health check one SIM of the account sent another
 * (the fleet health module answers). True when `sms` was one, and is taken: it is then no received
 * SMS of the account (not stored, not announced), though the phone hears it was stored.
 */
export interface OwnSmsCatcher {
  caught(accountId: string, deviceId: string, sms: ReceivedSms): Promise<boolean>;
}

export class IncomingService {
  constructor(
    private readonly db: Database,
    private readonly events: DomainEvents<IncomingEvents>,
    /** Without it, every SMS a phone reports is the account's. */
    private readonly own: OwnSmsCatcher = { caught: async () => false },
  ) {}

  /** Stores the SMS; undefined when the device had already reported it, or when it was the gateway's own check. */
  async store(accountId: string, deviceId: string, sms: ReceivedSms): Promise<incoming.IncomingSmsRow | undefined> {
    if (await this.own.caught(accountId, deviceId, sms)) return undefined;
    return this.db.transaction(async (trx) => {
      const row = await incoming.insertIncoming(trx, {
        account_id: accountId,
        device_id: deviceId,
        device_message_id: sms.deviceMessageId,
        phone: sms.phone,
        message: sms.message,
        sim_slot: sms.simSlot,
        received_at: sms.receivedAt,
        is_encrypted: sms.isEncrypted ?? false,
      });
      if (row) await this.events.written(trx, 'incoming.stored', row);
      return row;
    });
  }

  /**
   * Stores an SMS sent to the account through an upstream provider (no phone received it) and
   * announces it as a phone's would be: webhooks, inbound rules, conversations, opt-out keywords.
   * A provider gives no id to tell a repeat by, so each is stored as it comes.
   */
  async storeFromUpstream(accountId: string, upstreamId: string, sms: { from: string; text: string; at: Date }): Promise<incoming.IncomingSmsRow | undefined> {
    return this.db.transaction(async (trx) => {
      const row = await incoming.insertIncoming(trx, {
        account_id: accountId,
        device_id: null,
        device_message_id: `upstream:${randomUUID()}`,
        phone: sms.from,
        message: sms.text,
        sim_slot: null,
        received_at: sms.at,
        is_encrypted: false,
        upstream_id: upstreamId,
      });
      if (row) await this.events.written(trx, 'incoming.stored', row);
      return row;
    });
  }

  /** One received SMS of the account; undefined when there is none (answering one, for example). */
  find(accountId: string, id: string): Promise<incoming.IncomingSmsRow | undefined> {
    return incoming.findIncoming(this.db, accountId, id);
  }

  /** The SMS received from one number exactly as stored, newest first (a conversation's thread). */
  listFromNumber(accountId: string, phone: string, limit: number, cursor?: Cursor): Promise<incoming.IncomingSmsRow[]> {
    return incoming.listIncoming(this.db, accountId, limit, cursor, undefined, phone);
  }

  /** The account's received SMS with these ids (a conversation's newest). */
  findMany(accountId: string, ids: string[]): Promise<incoming.IncomingSmsRow[]> {
    return incoming.findManyIncoming(this.db, accountId, ids);
  }

  /** Retention: redacts a batch of the account's received SMS older than `before`; answers how many. */
  redactBefore(accountId: string, before: Date, at: Date, batch: number, hash?: (phone: string) => string): Promise<number> {
    return incoming.redactBefore(this.db, accountId, before, at, batch, hash);
  }

  /** Export: the account's received SMS oldest first, a page after `cursor`. */
  pageForExport(accountId: string, limit: number, cursor?: Cursor): Promise<incoming.IncomingSmsRow[]> {
    return incoming.pageForExport(this.db, accountId, limit, cursor);
  }

  list(accountId: string, limit: number, cursor?: Cursor, deviceId?: string) {
    return incoming.listIncoming(this.db, accountId, limit, cursor, deviceId);
  }
}
