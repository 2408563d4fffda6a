// Each SIM's own phone number: the owner's (a device setting) wins over the one the phone reports
// in its heartbeat, which a SIM without a number in its settings shows.
import type { SimCard, SimNumbers } from './types.ts';

export type PhoneNumberSource = 'owner' | 'device';

export interface SimCardView {
  index: number;
  name_operator: string;
  phone_number: string | null;
  phone_number_source: PhoneNumberSource | null;
}

/** The SIM slots an owner may give a number: those a phone may report (0-7). */
export const SIM_SLOTS = ['0', '1', '2', '3', '4', '5', '6', '7'] as const;

export function simCardsWithNumbers(cards: SimCard[], owners: SimNumbers | null | undefined): SimCardView[] {
  return cards.map((card) => {
    const owner = owners?.[String(card.index)];
    const [phone_number, phone_number_source] = owner ? [owner, 'owner' as const] : card.phone_number ? [card.phone_number, 'device' as const] : [null, null];
    return { index: card.index, name_operator: card.name_operator, phone_number, phone_number_source };
  });
}
