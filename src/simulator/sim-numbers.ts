// The simulated phones' own SIM numbers: each SIM reports one in the heartbeat, as a phone that
// knows its number does. Made from the device id and the slot, so a device keeps its numbers
// across restarts and two devices of a fleet seldom share one; Russian mobile ranges (+7 916,
// +7 917, ... by slot), which the gateway's number check takes as real.
import { createHash } from 'node:crypto';

export interface SimulatedSim {
  index: number;
  name_operator: string;
  phone_number?: string;
}

export function simulatedNumber(deviceId: string, slot: number): string {
  const digest = createHash('sha256').update(`${deviceId}:${slot}`).digest();
  const subscriber = String(digest.readUInt32BE(0) % 10_000_000).padStart(7, '0');
  return `+79${16 + (slot % 8)}${subscriber}`;
}

/** Each SIM with its number: the one given, or the simulated one when none was given. */
export function withSimulatedNumbers(cards: readonly SimulatedSim[], deviceId: string): SimulatedSim[] {
  return cards.map((card) => ('phone_number' in card ? card : { ...card, phone_number: simulatedNumber(deviceId, card.index) }));
}
