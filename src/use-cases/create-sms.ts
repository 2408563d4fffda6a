// Creating SMS (POST /sms, POST /sms/bulk, the legacy send). Each is checked first by the
// messages module, outside any transaction (a named device must be the account's and may send;
// a callback_id must name one of the account's webhooks, which the webhooks module answers);
// then written once per Idempotency-Key: in the transaction that holds the key, so a retry
// replays the first answer instead of sending again. A stored SMS is announced ("sms.queued")
// once that commits; a no_store SMS is handed to a device instead.
import type { IdempotencyService, IdempotentRequest, IdempotentResult } from '../modules/idempotency/service.ts';
import type { MessageService, PreparedSms } from '../modules/messages/service.ts';
import type { SmsRecord } from '../modules/messages/types.ts';
import type { Executor } from '../storage/database.ts';

export interface CreateSmsParts {
  messages: MessageService;
  idempotency: IdempotencyService;
}

/**
 * `prepare` checks the request (reads only); `answer` shapes the response from the SMS created,
 * in the order prepared, in the transaction that stores them when the request has a key (what it
 * writes there commits or fails with the SMS; without a key a single SMS joins a coalesced insert
 * and there is none). A request whose key already has a stored response is answered from it.
 */
export function createSms(
  { messages, idempotency }: CreateSmsParts,
  accountId: string,
  request: IdempotentRequest,
  prepare: () => Promise<PreparedSms[]>,
  answer: (created: SmsRecord[], trx: Executor | undefined) => Promise<{ status: number; body: unknown }> | { status: number; body: unknown },
): Promise<IdempotentResult> {
  return idempotency.run(accountId, request, prepare, async (prepared, trx) => answer(await messages.commit(prepared, trx), trx));
}
