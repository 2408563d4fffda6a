// Deleting an account with everything in it (the instance administrator, with the account's name
// typed again as confirmation). What lives outside the account's rows ends first: each phone is
// deleted as DELETE /devices/{id} deletes it (its connection closed, its tasks ended, its calls
// and their recording files removed); then the account row goes, and with it, through the
// database's cascades, every other row of the account (SMS, received SMS, MMS and media,
// conversations, keys, users and their sessions, webhooks and their deliveries, settings).
// Files outlive rows otherwise: every media and recording row deleted, by the cascade too, queues
// its file for removal in that same transaction (file_removals), so the files are removed here
// once it commits, or, if that fails or the process stops first, by the next retention run.
import { AppError } from '../common/errors.ts';
import type { AccountService } from '../modules/accounts/service.ts';
import type { Database } from '../storage/database.ts';
import { deleteDevice, type DeleteDeviceParts } from './delete-device.ts';

/** A store whose files of deleted rows are removed from a durable queue. */
interface QueuedFileRemoval {
  removeQueuedFiles(): Promise<number>;
}

export interface DeleteAccountParts extends DeleteDeviceParts {
  db: Database;
  accounts: AccountService;
  /** MMS media: uploads and received parts. */
  media: QueuedFileRemoval;
  recordings: QueuedFileRemoval;
}

export async function deleteAccount(parts: DeleteAccountParts, id: string, confirmName: string, ownAccountId: string): Promise<void> {
  if (id === ownAccountId) throw new AppError('cannot_change_self', 'an administrator cannot delete their own account');
  const account = await parts.accounts.summary(id);
  if (confirmName !== account.name) {
    throw new AppError('validation_failed', 'confirm must repeat the account\'s name exactly', [
      { field: 'confirm', in: 'query', message: 'confirm must repeat the account\'s name exactly' },
    ]);
  }
  for (const deviceId of await parts.devices.liveIds(id)) {
    try {
      await deleteDevice(parts, parts.db, id, deviceId);
    } catch (error) {
      // Deleted meanwhile by someone else: nothing left to end.
      if (!(error instanceof AppError && error.code === 'device_not_found')) throw error;
    }
  }
  await parts.accounts.remove(id);
  for (const store of [parts.media, parts.recordings]) {
    // The account is gone either way: a store that failed said so in its log, and what is still
    // queued (a database gone meanwhile too) is removed by the next retention run.
    await store.removeQueuedFiles().catch(() => undefined);
  }
}
