// How big a message's text may be before its characters are counted. The gateway sends at most
// MESSAGE_MAX_CHARACTERS characters as a person counts them (grapheme clusters), and counting
// those costs far more than measuring octets: text past these sizes is refused by its size
// alone. One such character can take many UTF-16 units (a family emoji takes 11, a subdivision
// flag 14); 24 each is more than any real text needs, as for a bulk CSV's message cell.
import { MESSAGE_MAX_CHARACTERS } from '../../modules/messages/schema.ts';

/** UTF-16 units a message's text may have: one per GSM-7 or Latin-1 character, one per UCS-2 octet pair. */
export const MESSAGE_MAX_UNITS = MESSAGE_MAX_CHARACTERS * 24;
/** Octets a message's text may have in a PDU, in any data_coding (UCS-2 takes two a unit). */
export const MESSAGE_MAX_OCTETS = MESSAGE_MAX_UNITS * 2;
