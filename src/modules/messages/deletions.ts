// Tombstones of deleted SMS (migration 013): the ids of an SMS an account deleted, nothing of its
// content. They tell "this account deleted it" (a delete said again succeeds again) from "this
// account never had it" (404).
import type { Executor } from '../../storage/database.ts';

export interface DeletedSms {
  id: string;
  object_id: string;
  account_id: string;
}

export async function recordDeletion(db: Executor, sms: DeletedSms, at: Date): Promise<void> {
  await db('deleted_sms').insert({ id: sms.id, object_id: sms.object_id, account_id: sms.account_id, deleted_at: at });
}

/** Whether the account deleted the SMS with this id (UUID or object id). */
export async function wasDeleted(db: Executor, accountId: string, id: { uuid?: string; objectId?: string }): Promise<boolean> {
  const query = db('deleted_sms').where({ account_id: accountId });
  if (id.uuid) query.where({ id: id.uuid });
  else query.where({ object_id: id.objectId! });
  return (await query.first('id')) !== undefined;
}
