// How busy each online device is, kept in memory so that choosing a device costs no query. A
// device is read from the database once (may it send? how many SMS does it hold?) and then
// followed: +1 when an SMS is assigned to it, -1 when one leaves pending/processing. Anything
// that may have changed behind our back (settings, reconnects, deletion) forgets the device, and
// the next choice reads it afresh. With several gateway nodes each node counts what it assigned
// since it last read the device: good enough to spread load, and never wrong about may-it-send
// for longer than a settings change takes to arrive.
import type { Executor } from '../../storage/database.ts';
import { sendableWithLoad } from '../devices/repository.ts';
import type { Candidate } from './device-picker.ts';

export class DeviceLoad {
  private readonly devices = new Map<string, { canSend: boolean; inFlight: number }>();

  /** Reads the devices among `ids` that are not known yet. */
  async ensure(db: Executor, accountId: string, ids: string[]): Promise<void> {
    const unknown = ids.filter((id) => !this.devices.has(id));
    if (unknown.length === 0) return;
    const sendable = new Map((await sendableWithLoad(db, accountId, unknown)).map((row) => [row.id, row.in_flight]));
    for (const id of unknown) this.devices.set(id, { canSend: sendable.has(id), inFlight: sendable.get(id) ?? 0 });
  }

  *candidates(ids: string[]): Iterable<Candidate> {
    for (const id of ids) {
      const device = this.devices.get(id);
      if (device?.canSend) yield { id, in_flight: device.inFlight };
    }
  }

  assigned(deviceId: string, count = 1): void {
    const device = this.devices.get(deviceId);
    if (device) device.inFlight += count;
  }

  finished(deviceId: string): void {
    const device = this.devices.get(deviceId);
    if (device && device.inFlight > 0) device.inFlight--;
  }

  forget(deviceId: string): void {
    this.devices.delete(deviceId);
  }
}
