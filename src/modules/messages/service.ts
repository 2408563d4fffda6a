// Creating and reading SMS. A stored SMS is a committed row before the client hears 201
// (DESIGN.md decision 1); delivery to the phone is the device channel's job and starts from
// the "sms.queued" event.
import { randomUUID } from 'node:crypto';
import type { Database } from '../../storage/database.ts';
import { AppError, invalidField } from '../../shared/errors.ts';
import type { GatewayEventBus } from '../../shared/events.ts';
import { newObjectId } from '../../shared/object-id.ts';
import { normalizePhone } from '../../shared/phone.ts';
import type { Cursor } from '../../http/pagination.ts';
import type { DeviceService } from '../devices/service.ts';
import type { DevicePicker } from './device-picker.ts';
import type { DeviceLoad } from './device-load.ts';
import type { SmsWriter } from './sms-writer.ts';
import * as messages from './repository.ts';

export interface NewSms {
  phone: string;
  message: string;
  deviceId?: string | undefined;
  noStore?: boolean | undefined;
  simSlot?: number | null | undefined;
  callbackId?: string | null | undefined;
  /** Name of the phone field in the caller's API, for error messages. */
  phoneField?: string;
}

/** Whether a callback_id names a webhook of the account (the webhooks feature answers). */
export interface CallbackDirectory {
  exists(accountId: string, callbackId: string): Promise<boolean>;
}

export class MessageService {
  /** Until a webhooks feature is plugged in, no webhook exists, so no callback_id is valid. */
  callbacks: CallbackDirectory = { exists: async () => false };

  constructor(
    private readonly db: Database,
    private readonly devices: DeviceService,
    private readonly picker: DevicePicker,
    private readonly load: DeviceLoad,
    private readonly writer: SmsWriter,
    private readonly events: GatewayEventBus,
    private readonly defaultPhoneRegion: string | undefined,
  ) {}

  async create(accountId: string, input: NewSms): Promise<messages.SmsRecord> {
    const phoneField = input.phoneField ?? 'phone';
    const phone = normalizePhone(input.phone, this.defaultPhoneRegion);
    if (!phone) {
      const hint = this.defaultPhoneRegion ? '' : ' in international format, such as +79161234567';
      throw invalidField(phoneField, `${phoneField} must be a valid phone number${hint}`, 'invalid_phone');
    }

    if (input.callbackId && !(await this.callbacks.exists(accountId, input.callbackId))) {
      throw invalidField('callback_id', 'callback_id does not name a webhook of this account', 'unknown_callback');
    }

    let deviceId: string | undefined;
    if (input.deviceId) {
      const device = await this.devices.get(accountId, input.deviceId);
      if (!device.can_send_sms) throw new AppError('device_cannot_send', `device ${device.id} is not allowed to send SMS (can_send_sms is false)`);
      deviceId = device.id;
    } else {
      deviceId = await this.picker.pick(this.db, accountId);
    }

    const now = new Date();
    const sms: messages.SmsRecord = {
      id: randomUUID(),
      object_id: newObjectId(now.getTime()),
      account_id: accountId,
      device_id: deviceId ?? null,
      device_named: Boolean(input.deviceId),
      phone,
      message: input.message,
      status: 'pending',
      sim_slot: input.simSlot ?? null,
      callback_id: input.callbackId ?? null,
      created_at: now,
      updated_at: now,
    };

    if (input.noStore) {
      // spec 4.1 rule 4: no record and no retry queue. Rather than lose the SMS silently when no
      // device can take it this moment, refuse it so the client can retry or store it.
      if (!deviceId || !this.devices.isOnline(deviceId)) {
        throw new AppError(
          'no_device_available',
          'no_store SMS need an online device that may send SMS right now; none is connected. Retry later, or send without no_store so the gateway queues it.',
        );
      }
      this.events.emit('sms.transient', sms);
      return sms;
    }

    await this.writer.write(sms);
    if (sms.device_id) this.load.assigned(sms.device_id);
    this.events.emit('sms.queued', sms);
    return sms;
  }

  async get(accountId: string, id: string): Promise<messages.SmsRecord> {
    const sms = await messages.findSms(this.db, accountId, id);
    if (!sms) throw new AppError('sms_not_found');
    return sms;
  }

  async getByAnyId(accountId: string, id: { uuid?: string; objectId?: string }): Promise<messages.SmsWithDevice> {
    const sms = await messages.findSmsByAnyId(this.db, accountId, id);
    if (!sms) throw new AppError('sms_not_found');
    return sms;
  }

  /** Deletes the record and its history. A phone that already took the task may still send it. */
  async delete(accountId: string, id: { uuid?: string; objectId?: string }): Promise<void> {
    const sms = await this.getByAnyId(accountId, id);
    await messages.deleteSms(this.db, accountId, sms.id);
  }

  search(accountId: string, search: messages.SmsSearch, limit: number, offset: number) {
    return messages.searchSms(this.db, accountId, search, limit, offset);
  }

  list(accountId: string, filter: messages.SmsFilter, limit: number, cursor?: Cursor) {
    return messages.listSms(this.db, accountId, filter, limit, cursor);
  }

  history(smsId: string) {
    return messages.historyOf(this.db, smsId);
  }
}
