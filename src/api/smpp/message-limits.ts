// How big a message's text may be before its characters are counted. The gateway sends at most
// MESSAGE_MAX_CHARACTERS characters as a person counts them (grapheme clusters), and counting
// those costs far more than measuring octets: text past these sizes is refused by its size
// alone, as every way in refuses it (common/characters.ts).
import { MAX_UNITS_PER_CHARACTER } from '../../common/characters.ts';
import { MESSAGE_MAX_CHARACTERS } from '../../modules/messages/schema.ts';

/** UTF-16 units a message's text may have: one per GSM-7 or Latin-1 character, one per UCS-2 octet pair. */
export const MESSAGE_MAX_UNITS = MESSAGE_MAX_CHARACTERS * MAX_UNITS_PER_CHARACTER;
/** Octets a message's text may have in a PDU, in any data_coding (UCS-2 takes two a unit). */
export const MESSAGE_MAX_OCTETS = MESSAGE_MAX_UNITS * 2;
