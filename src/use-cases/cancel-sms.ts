// A client cancels an SMS no phone has taken yet (POST /sms/{id}/cancel): delivery ends it as
// failed_send, reason "cancelled", in one transaction with its announcement. Cancelling it again
// answers it as it stands; one already final (delivered, failed, ended by the gateway) is
// already_final, one a phone holds or sent and that is not final yet is already_taken.
import { inTransaction, type Executor } from '../storage/database.ts';
import { AppError } from '../common/errors.ts';
import type { MessageService } from '../modules/messages/service.ts';
import type { SmsRecord } from '../modules/messages/types.ts';
import { isFinal } from '../modules/messages/transitions.ts';
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
  // Final (delivered, failed, ended by the gateway): nothing is left to cancel, whoever ended it.
  if (isFinal(sms.status)) throw new AppError('already_final', `the SMS has already ended (status ${sms.status}${sms.reason ? `, ${sms.reason}` : ''})`);
  // A phone holds it (processing) or sent it and waits for its report (sent): not final, not cancellable.
  throw new AppError('already_taken', `a phone has already taken this SMS (status ${sms.status}); it can no longer be cancelled`);
}
