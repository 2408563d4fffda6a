// In-process domain events. Services announce what happened; the device channel (and later the
// webhook dispatcher) react. Listeners run after the change is committed, and a failing
// listener is logged, never thrown back into the request that caused the event.
import { EventEmitter } from 'node:events';
import type { DeviceRow } from '../modules/devices/types.ts';
import type { SmsRecord } from '../modules/messages/types.ts';
import type { IncomingSmsRow } from '../modules/incoming/types.ts';

export interface GatewayEvents {
  /** A stored SMS was committed; it may or may not have a device yet. */
  'sms.queued': [sms: SmsRecord];
  /** A no_store SMS, held only in memory, must be handed to its device now. */
  'sms.transient': [sms: SmsRecord];
  /** A device's settings changed (PATCH settings, legacy edit). */
  'device.settings_changed': [device: DeviceRow];
  /** A device was deleted; its credentials are dead. */
  'device.deleted': [device: DeviceRow];
  /** A device was given a new token; the old one is dead, and so must be a connection made with it. */
  'device.token_replaced': [device: DeviceRow];
  /** Tasks handed to a device were taken back before its phone acknowledged them; committed. */
  'tasks.withdrawn': [withdrawn: { deviceId: string; smsIds: string[]; reason: string }];
  /** An incoming SMS was stored (not a repeat of one already stored); committed. */
  'incoming.stored': [row: IncomingSmsRow];
  /** A device with notify_low_battery on reported its battery falling below the threshold. */
  'device.battery_low': [device: DeviceRow];
}

export class GatewayEventBus {
  private readonly emitter = new EventEmitter();

  constructor(private readonly onListenerError: (error: unknown, event: string) => void) {
    this.emitter.setMaxListeners(50);
  }

  on<E extends keyof GatewayEvents>(event: E, listener: (...args: GatewayEvents[E]) => void | Promise<void>): void {
    this.emitter.on(event, (...args: GatewayEvents[E]) => {
      try {
        const result = listener(...args);
        if (result instanceof Promise) result.catch((error: unknown) => this.onListenerError(error, event));
      } catch (error) {
        this.onListenerError(error, event);
      }
    });
  }

  emit<E extends keyof GatewayEvents>(event: E, ...args: GatewayEvents[E]): void {
    this.emitter.emit(event, ...args);
  }

  removeAllListeners(): void {
    this.emitter.removeAllListeners();
  }
}
