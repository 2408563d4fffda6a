// A client cancels an SMS no phone has taken yet (POST /sms/{id}/cancel): delivery ends it as
// failed_send, reason "cancelled", in one transaction with its announcement. Cancelling it again
// answers it as it stands; one ended otherwise, or taken by a phone, says why it cannot be.
import { inTransaction, type Executor } from '../storage/database.ts';
import { AppError } from '../common/errors.ts';
import type { MessageService } from '../modules/messages/service.ts';
import type { SmsRecord } from '../modules/messages/types.ts';
import { ENDED_BY_GATEWAY } from '../modules/messages/status.ts';
import type { TaskService } from '../modules/delivery/task-service.ts';

export interface CancelSmsParts {
  messages: MessageService;
  tasks: TaskService;
}

/** `executor`: the database, or a transaction this joins. */
export async function cancelSms({ messages, tasks }: CancelSmsParts, executor: Executor, accountId: string, id: string): Promise<SmsRecord> {
  const cancelled = await inTransaction(executor, (trx) => tasks.cancelPending(trx, accountId, id));
  const sms = await messages.get(accountId, id);
  if (cancelled || (sms.status === 'failed_send' && sms.reason === 'cancelled')) return sms;
  // Ended by the gateway before any phone took it: final, but not taken.
  if (sms.status === 'failed_send' && ENDED_BY_GATEWAY.has(sms.reason ?? '')) {
    throw new AppError('already_final', `the SMS has already ended (${sms.reason})`);
  }
  throw new AppError('already_taken', `a phone has already taken this SMS (status ${sms.status}); it can no longer be cancelled`);
}
