// A SIM's number in a heartbeat is a nicety: one the gateway cannot read as an E.164 number is
// dropped for that SIM (the reason logged and counted), and the rest of the heartbeat applies, so
// that a phone reporting its number oddly keeps its battery, signal and SIMs shown.
import { maskPhone } from '../src/common/logger.ts';
import { normalizePhone } from '../src/common/phone.ts';
import type { Heartbeat } from './payloads.ts';

export interface CheckedNumbers {
  heartbeat: Heartbeat;
  /** One line per number dropped, naming the SIM. */
  dropped: string[];
}

export function checkSimNumbers(heartbeat: Heartbeat): CheckedNumbers {
  const dropped: string[] = [];
  const simCards = heartbeat.sim_cards.map((card) => {
    if (card.phone_number === undefined) return card;
    const { phone_number: raw, ...rest } = card;
    // International form only: the gateway does not guess a phone's country.
    const phone = normalizePhone(raw);
    if (phone) return { ...rest, phone_number: phone };
    // Masked: a national number the gateway cannot read is still the SIM's number, and logs carry none whole.
    dropped.push(`sim_cards[${card.index}].phone_number is no phone number in international (E.164) form: "${maskPhone(raw)}"`);
    return rest;
  });
  return { heartbeat: { ...heartbeat, sim_cards: simCards }, dropped };
}
