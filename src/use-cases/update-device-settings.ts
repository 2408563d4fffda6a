// A device's settings change (PATCH /devices/{id}/settings, the legacy edit). A device that may
// no longer send gives back, in the same transaction, the tasks its phone has not acknowledged
// (delivery); once it commits, its phone is told to drop them, and the new settings reach the
// phone (here, or through the node holding its connection).
import { inTransaction, type Executor } from '../storage/database.ts';
import { AppError } from '../common/errors.ts';
import type { DeviceService, SettingsPatch } from '../modules/devices/service.ts';
import type { DeviceRow } from '../modules/devices/types.ts';
import type { TaskService } from '../modules/delivery/task-service.ts';

export interface UpdateDeviceSettingsParts {
  devices: DeviceService;
  tasks: TaskService;
}

/** `executor`: the database, or a transaction this joins. */
export async function updateDeviceSettings(
  { devices, tasks }: UpdateDeviceSettingsParts,
  executor: Executor,
  accountId: string,
  id: string,
  patch: SettingsPatch,
): Promise<DeviceRow> {
  const changes = devices.checkSettings(patch);
  return inTransaction(executor, async (trx) => {
    const device = await devices.writeSettings(trx, accountId, id, changes);
    if (!device) throw new AppError('device_not_found');
    if (changes.can_send_sms === false) await tasks.withdrawUnacknowledged(trx, device.id);
    // Ending the device's pause ends its SIMs' pauses too; a new jitter starts from now.
    if (patch.paused === false) await tasks.resumeSims(trx, device.id);
    if (patch.send_jitter !== undefined) await tasks.resetSpacing(trx, device.id);
    await devices.settingsChanged(trx, device);
    return device;
  });
}
