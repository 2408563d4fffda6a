// SMS received by the account's phones (forwarded only when forward_incoming_sms is on).
import type { Database, Executor } from '../../storage/database.ts';
import type { Cursor } from '../../storage/paging.ts';
import type { GatewayEventBus } from '../../common/events.ts';
import * as incoming from './repository.ts';

export interface ReceivedSms {
  deviceMessageId: string;
  phone: string;
  message: string;
  receivedAt: Date;
  simSlot: number | null;
}

export class IncomingService {
  /** Hears each newly stored SMS, in its transaction (the webhook outbox). */
  onStored: (trx: Executor, row: incoming.IncomingSmsRow) => Promise<void> = async () => {};

  constructor(
    private readonly db: Database,
    private readonly events: GatewayEventBus,
  ) {}

  /** Stores the SMS; undefined when the device had already reported it. */
  async store(accountId: string, deviceId: string, sms: ReceivedSms): Promise<incoming.IncomingSmsRow | undefined> {
    const stored = await this.db.transaction(async (trx) => {
      const row = await incoming.insertIncoming(trx, {
        account_id: accountId,
        device_id: deviceId,
        device_message_id: sms.deviceMessageId,
        phone: sms.phone,
        message: sms.message,
        sim_slot: sms.simSlot,
        received_at: sms.receivedAt,
      });
      if (row) await this.onStored(trx, row);
      return row;
    });
    if (stored) this.events.emit('incoming.stored', stored);
    return stored;
  }

  list(accountId: string, limit: number, cursor?: Cursor, deviceId?: string) {
    return incoming.listIncoming(this.db, accountId, limit, cursor, deviceId);
  }
}
