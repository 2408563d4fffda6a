// Deleting an account with everything in it (the instance administrator, with the account's name
// typed again as confirmation). What lives outside the account's rows ends first: each phone is
// deleted as DELETE /devices/{id} deletes it (its connection closed, its tasks ended, its calls
// and their recording files removed); then the account row goes, and with it, through the
// database's cascades, every other row of the account (SMS, received SMS, conversations, keys,
// users and their sessions, webhooks and their deliveries, settings).
import { AppError } from '../common/errors.ts';
import type { AccountService } from '../modules/accounts/service.ts';
import type { Database } from '../storage/database.ts';
import { deleteDevice, type DeleteDeviceParts } from './delete-device.ts';

export interface DeleteAccountParts extends DeleteDeviceParts {
  db: Database;
  accounts: AccountService;
}

export async function deleteAccount(parts: DeleteAccountParts, id: string, confirmName: string, ownAccountId: string): Promise<void> {
  if (id === ownAccountId) throw new AppError('cannot_change_self', 'an administrator cannot delete their own account');
  const account = await parts.accounts.summary(id);
  if (confirmName !== account.name) {
    throw new AppError('validation_failed', 'confirm must repeat the account\'s name exactly', [
      { field: 'confirm', in: 'query', message: 'must repeat the account\'s name exactly' },
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
}
