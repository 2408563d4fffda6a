// Creating an MMS (POST /api/ext/v1/mms): an sms row of kind "mms", checked and written by the
// messages module as any SMS (so statuses, pacing, failover, cancelling and webhooks serve it),
// and its subject, recipients and parts, checked and written by the MMS module in the same
// transaction, so that no phone is offered an MMS whose parts are not yet written. Once per
// Idempotency-Key, as the create-SMS use case.
import type { IdempotencyService, IdempotentRequest, IdempotentResult } from '../modules/idempotency/service.ts';
import type { MessageService, NewSms } from '../modules/messages/service.ts';
import type { SmsRecord } from '../modules/messages/types.ts';
import type { MmsService, PreparedMms } from '../modules/mms/service.ts';
import type { Database, Executor } from '../storage/database.ts';

export interface CreateMmsParts {
  db: Database;
  messages: MessageService;
  mms: MmsService;
  idempotency: IdempotencyService;
}

export interface NewMms {
  /** Every recipient: one is an MMS to one number, several a group MMS (one message to all). */
  phones: string[];
  /** Name of the phone field in the request, for error messages. */
  phoneField: string;
  message: string | undefined;
  subject: string | undefined;
  mediaIds: string[];
  sms: Omit<NewSms, 'phone' | 'message' | 'phoneField' | 'noStore'>;
}

export function createMms(
  { db, messages, mms, idempotency }: CreateMmsParts,
  accountId: string,
  request: IdempotentRequest,
  input: NewMms,
  answer: (created: SmsRecord, prepared: PreparedMms) => { status: number; body: unknown },
): Promise<IdempotentResult> {
  const prepare = async () => {
    // Each recipient is checked (and normalized) as an SMS's phone is; the row carries the first.
    const rows = [];
    for (const [index, phone] of input.phones.entries()) {
      const field = input.phones.length > 1 || input.phoneField === 'phones' ? `phones.${index}` : input.phoneField;
      rows.push(await messages.prepare(accountId, { ...input.sms, phone, message: input.message ?? '', phoneField: field, mms: true }));
    }
    const first = rows[0]!;
    const recipients = [...new Set(rows.map((row) => row.sms.phone))];
    const prepared = await mms.prepare(accountId, { recipients, subject: input.subject, mediaIds: input.mediaIds });
    return { row: first, prepared };
  };
  return idempotency.run(accountId, request, prepare, async ({ row, prepared }, trx) => {
    const write = async (executor: Executor) => {
      const [created] = await messages.commit([row], executor);
      await mms.write(executor, created!.id, prepared);
      return answer(created!, prepared);
    };
    return trx ? write(trx) : db.transaction(write);
  });
}
