// Chooses the device for an SMS whose client named none (spec 4.1 rule 5): an online device
// that may send, the one with the fewest SMS in flight, taking turns among equally busy ones.
// Choosing costs no query: DeviceLoad keeps each online device's count in memory.
import type { Executor } from '../../storage/database.ts';
import type { DevicePresence } from '../devices/presence.ts';
import type { DeviceLoad } from './device-load.ts';

export interface Candidate {
  id: string;
  in_flight: number;
}

/**
 * The least busy candidate; among equals, the first after `previous` in id order (round robin).
 * One pass, no sorting: an account may have thousands of phones.
 */
export function chooseDevice(candidates: Iterable<Candidate>, previous: string | undefined): string | undefined {
  let least = Number.POSITIVE_INFINITY;
  let first: string | undefined;
  let next: string | undefined;
  for (const candidate of candidates) {
    if (candidate.in_flight > least) continue;
    if (candidate.in_flight < least) {
      least = candidate.in_flight;
      first = next = undefined;
    }
    if (first === undefined || candidate.id < first) first = candidate.id;
    if (previous !== undefined && candidate.id > previous && (next === undefined || candidate.id < next)) next = candidate.id;
  }
  return next ?? first;
}

export class DevicePicker {
  private readonly previous = new Map<string, string>();

  constructor(
    private readonly presence: DevicePresence,
    private readonly load: DeviceLoad,
  ) {}

  /** The device to use now, or undefined when no online device of the account may send. */
  async pick(db: Executor, accountId: string): Promise<string | undefined> {
    const online = this.presence.onlineDevices(accountId);
    if (online.length === 0) return undefined;
    await this.load.ensure(db, accountId, online);
    const chosen = chooseDevice(this.load.candidates(online), this.previous.get(accountId));
    if (chosen) this.previous.set(accountId, chosen);
    return chosen;
  }
}
