// Which SIMs take part in a round: a SIM whose own number is known (the owner's sim_numbers wins
// over the one its heartbeat reports), of a live device that is online, may send
// (can_send_sms) and forwards what it receives (forward_incoming_sms: else the code it receives
// never reaches the gateway). Canary SMS go only to these numbers, never outside the account.
import type { DeviceRow } from '../../devices/types.ts';
import { simCardsWithNumbers } from '../../devices/sim-numbers.ts';
import type { SkippedSim } from './types.ts';

export interface CanarySim {
  deviceId: string;
  simSlot: number;
  phone: string;
}

export interface Eligibility {
  /** In a stable order: by device id, then slot. */
  eligible: CanarySim[];
  skipped: SkippedSim[];
}

/** The SIMs of the online devices (`offline`: the live devices that are not), eligible or skipped. */
export function eligibleSims(online: readonly DeviceRow[], offline: readonly string[]): Eligibility {
  const skipped: SkippedSim[] = offline.map((id) => ({ device_id: id, sim_slot: null, reason: 'offline' }));
  const candidates: CanarySim[] = [];
  for (const device of [...online].sort((a, b) => a.id.localeCompare(b.id))) {
    if (!device.can_send_sms) skipped.push({ device_id: device.id, sim_slot: null, reason: 'cannot_send' });
    else if (!device.forward_incoming_sms) skipped.push({ device_id: device.id, sim_slot: null, reason: 'forwarding_off' });
    else {
      for (const sim of simsOf(device)) {
        if (sim.phone) candidates.push({ deviceId: device.id, simSlot: sim.slot, phone: sim.phone });
        else skipped.push({ device_id: device.id, sim_slot: sim.slot, reason: 'no_number' });
      }
    }
  }
  // Two SIMs said to have one number cannot both be told apart as receivers: the first keeps it.
  const seen = new Set<string>();
  const eligible = candidates.filter((sim) => {
    if (!seen.has(sim.phone)) return seen.add(sim.phone), true;
    skipped.push({ device_id: sim.deviceId, sim_slot: sim.simSlot, reason: 'number_shared' });
    return false;
  });
  return { eligible, skipped };
}

/**
 * The device's SIMs: those its heartbeat reports, with their numbers; a phone that reports no SIM
 * at all has the slots its owner gave numbers to.
 */
function simsOf(device: DeviceRow): { slot: number; phone: string | null }[] {
  const cards = device.sim_cards ?? [];
  const owners = device.sim_numbers ?? {};
  const sims =
    cards.length > 0
      ? simCardsWithNumbers(cards, owners).map((card) => ({ slot: card.index, phone: card.phone_number }))
      : Object.entries(owners).map(([slot, phone]) => ({ slot: Number(slot), phone }));
  return sims.sort((a, b) => a.slot - b.slot);
}

/** Why a round cannot start, for people: what is missing of each SIM left out. */
export function whyTooFew(eligibility: Eligibility): string {
  const counts = new Map<SkippedSim['reason'], number>();
  for (const sim of eligibility.skipped) counts.set(sim.reason, (counts.get(sim.reason) ?? 0) + 1);
  const words: Record<SkippedSim['reason'], string> = {
    offline: 'device(s) offline',
    cannot_send: 'device(s) with can_send_sms off',
    forwarding_off: 'device(s) with forward_incoming_sms off',
    no_number: 'SIM(s) whose number is unknown (set it in the device settings sim_numbers)',
    number_shared: 'SIM(s) sharing a number with another SIM',
  };
  const left = [...counts].map(([reason, n]) => `${n} ${words[reason]}`);
  return (
    `a canary round needs at least two eligible SIMs (number known, device online, can_send_sms and forward_incoming_sms on); ` +
    `this account has ${eligibility.eligible.length}` +
    (left.length > 0 ? `; left out: ${left.join(', ')}` : '; it has no device online')
  );
}
