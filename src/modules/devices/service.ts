// Devices of an account: registration (credentials for the device channel), reading, and
// settings. Settings changes are announced so the device channel can push them to the phone.
import type { Database, Executor } from '../../storage/database.ts';
import type { SmsStatusEventWriter } from '../messages/status-events.ts';
import { AppError, invalidField } from '../../shared/errors.ts';
import { exceedsCharacters } from '../../shared/characters.ts';
import type { GatewayEventBus } from '../../shared/events.ts';
import { hashSecret, randomToken } from '../../shared/secrets.ts';
import type { Cursor } from '../../http/pagination.ts';
import type { DevicePresence } from './presence.ts';
import * as devices from './repository.ts';
import { releaseDeviceSms } from '../messages/repository.ts';

export class DeviceService {
  /** Hears the SMS a device gives up when it can no longer send (the webhook outbox). */
  statusEvents: SmsStatusEventWriter = async () => {};

  constructor(
    private readonly db: Database,
    private readonly presence: DevicePresence,
    private readonly events: GatewayEventBus,
  ) {}

  /** Registers a device; the token is returned once and only its hash is kept. */
  async register(accountId: string, name: string): Promise<{ device: devices.DeviceRow; token: string }> {
    const trimmed = name.trim();
    if (trimmed.length === 0 || exceedsCharacters(trimmed, 100)) {
      throw invalidField('name', 'name must be 1-100 characters');
    }
    const token = `sgd_${randomToken(32)}`;
    const device = await devices.insertDevice(this.db, { accountId, name: trimmed, tokenHash: hashSecret(token) });
    return { device, token };
  }

  async get(accountId: string, id: string): Promise<devices.DeviceRow> {
    const device = await devices.findDevice(this.db, accountId, id);
    // Another account's device is "not found" too: its existence is none of this key's business.
    if (!device) throw new AppError('device_not_found');
    return device;
  }

  async getByAnyId(accountId: string, id: { uuid?: string; objectId?: string }): Promise<devices.DeviceRow> {
    const device = await devices.findDeviceByAnyId(this.db, accountId, id);
    if (!device) throw new AppError('device_not_found');
    return device;
  }

  list(accountId: string, limit: number, cursor?: Cursor): Promise<devices.DeviceRow[]> {
    return devices.listDevices(this.db, accountId, limit, cursor);
  }

  async updateSettings(accountId: string, id: string, settings: devices.DeviceSettings): Promise<devices.DeviceRow> {
    // spec 4.1: an empty name_custom resets to the system name, which we store as "no custom name".
    const changes = settings.name_custom === '' ? { ...settings, name_custom: null } : settings;
    const device = await this.db.transaction(async (trx) => {
      const updated = await devices.updateDeviceSettings(trx, accountId, id, changes);
      // A device that may no longer send gives back its unsent SMS in the same transaction.
      if (updated && settings.can_send_sms === false) {
        await this.release(trx, updated.id, 'device may no longer send SMS (can_send_sms false)');
      }
      return updated;
    });
    if (!device) throw new AppError('device_not_found');
    this.events.emit('device.settings_changed', device);
    return device;
  }

  /** Deletes the device: credentials revoked, unsent SMS back to the pool or failed. */
  async delete(accountId: string, id: string): Promise<devices.DeviceRow> {
    const device = await this.db.transaction(async (trx) => {
      const deleted = await devices.softDeleteDevice(trx, accountId, id);
      if (deleted) await this.release(trx, deleted.id, 'device deleted');
      return deleted;
    });
    if (!device) throw new AppError('device_not_found');
    this.presence.markDisconnected(device.id);
    this.events.emit('device.deleted', device);
    return device;
  }

  /** Unsent SMS back to the pool, or failed where the client named the device; statuses announced. */
  private async release(trx: Executor, deviceId: string, reason: string): Promise<void> {
    const changes = await releaseDeviceSms(trx, deviceId, reason);
    // Back to the pool is no status news; failing is.
    const failed = changes.filter((change) => change.to === 'failed_send');
    if (failed.length > 0) await this.statusEvents(trx, failed);
  }

  isOnline(deviceId: string): boolean {
    return this.presence.isOnline(deviceId);
  }
}
