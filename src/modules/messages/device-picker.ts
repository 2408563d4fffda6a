// Chooses the device for an SMS whose client named none (spec 4.1 rule 5): an online device
// that may send, the one with the fewest SMS in flight, taking turns among equally busy ones.
import type { Executor } from '../../storage/database.ts';
import type { DevicePresence } from '../devices/presence.ts';
import { sendableWithLoad } from '../devices/repository.ts';

export interface Candidate {
  id: string;
  in_flight: number;
}

/** The least busy candidate; among equals, the first after `previous` in id order (round robin). */
export function chooseDevice(candidates: Candidate[], previous: string | undefined): string | undefined {
  if (candidates.length === 0) return undefined;
  const least = Math.min(...candidates.map((candidate) => candidate.in_flight));
  const tied = candidates.filter((candidate) => candidate.in_flight === least).map((candidate) => candidate.id).sort();
  return tied.find((id) => previous === undefined || id > previous) ?? tied[0];
}

export class DevicePicker {
  private readonly previous = new Map<string, string>();

  constructor(private readonly presence: DevicePresence) {}

  /** The device to use now, or undefined when no online device of the account may send. */
  async pick(db: Executor, accountId: string): Promise<string | undefined> {
    const online = this.presence.onlineDevices(accountId);
    if (online.length === 0) return undefined;
    const chosen = chooseDevice(await sendableWithLoad(db, accountId, online), this.previous.get(accountId));
    if (chosen) this.previous.set(accountId, chosen);
    return chosen;
  }
}
