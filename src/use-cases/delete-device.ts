// Deleting a device (DELETE /devices/{id}, the legacy delete): its credentials are revoked, its
// tasks end or go back to the pool (delivery), and its call log goes with it (calls), all in one
// transaction; once it commits, its connection is closed here and on the other nodes. A device
// the account deleted before is deleted again without any effect: a client retrying after a
// timeout that hid the first answer must not hear its own success as an error. A device that was
// never the account's is "not found".
import { inTransaction, type Executor } from '../storage/database.ts';
import { AppError } from '../common/errors.ts';
import type { DeviceService } from '../modules/devices/service.ts';
import type { DeviceRow } from '../modules/devices/types.ts';
import type { TaskService } from '../modules/delivery/task-service.ts';
import type { CallService } from '../modules/calls/service.ts';

export interface DeleteDeviceParts {
  devices: DeviceService;
  tasks: TaskService;
  calls: CallService;
}

/** `executor`: the database, or a transaction this joins. */
export async function deleteDevice({ devices, tasks, calls }: DeleteDeviceParts, executor: Executor, accountId: string, id: string): Promise<DeviceRow> {
  return inTransaction(executor, async (trx) => {
    const outcome = await devices.markDeleted(trx, accountId, id);
    if (!outcome) throw new AppError('device_not_found');
    // Closing the connection and telling the others happened when it was deleted.
    if (!outcome.deletedNow) return outcome.device;
    await tasks.endDeletedDeviceTasks(trx, outcome.device.id);
    devices.deleted(trx, outcome.device);
    await calls.deleteDeviceCalls(trx, outcome.device.id);
    return outcome.device;
  });
}

/** deleteDevice() by UUID or legacy object id, which may name a device the account deleted before. */
export async function deleteDeviceByAnyId(parts: DeleteDeviceParts, executor: Executor, accountId: string, id: { uuid?: string; objectId?: string }): Promise<DeviceRow> {
  const device = await parts.devices.getIncludingDeleted(accountId, id);
  return deleteDevice(parts, executor, accountId, device.id);
}
