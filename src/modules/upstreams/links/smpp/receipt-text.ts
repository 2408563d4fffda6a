// A delivery receipt, as SMSCs send them in deliver_sm: the customary text (SMPP 3.4 appendix B,
// "id:... sub:... dlvrd:... submit date:... done date:... stat:DELIVRD err:000 text:...") and
// the receipted_message_id and message_state TLVs, which win over the text where both are given.
import type { ReceiptOutcome } from '../link.ts';

export interface ReceiptFields {
  /** The provider's message id. */
  id: string | undefined;
  /** The stat word, upper case (DELIVRD, UNDELIV, ...). */
  stat: string | undefined;
  err: string | undefined;
}

/** Reads the receipt text's fields; a field the text lacks is undefined. */
export function parseReceiptText(text: string): ReceiptFields {
  return {
    id: field(text, 'id'),
    stat: field(text, 'stat')?.toUpperCase(),
    err: field(text, 'err'),
  };
}

function field(text: string, name: string): string | undefined {
  // "id:" must not be read inside another word ("msgid:" is not it); "text:" ends the fields.
  const fields = text.split(/\btext:/i)[0]!;
  const match = new RegExp(`(?:^|\\s)${name}:(\\S*)`, 'i').exec(fields);
  return match && match[1] !== '' ? match[1] : undefined;
}

const STAT_OUTCOMES: Record<string, ReceiptOutcome> = {
  DELIVRD: 'delivered',
  UNDELIV: 'undelivered',
  EXPIRED: 'failed_delivery',
  REJECTD: 'failed_delivery',
  DELETED: 'failed_delivery',
  UNKNOWN: 'failed_delivery',
  ACCEPTD: 'sent',
  ENROUTE: 'sent',
};

/** message_state (SMPP 3.4 5.2.28) with the stat word each stands for. */
const MESSAGE_STATES: Record<number, string> = {
  1: 'ENROUTE',
  2: 'DELIVRD',
  3: 'EXPIRED',
  4: 'DELETED',
  5: 'UNDELIV',
  6: 'ACCEPTD',
  7: 'UNKNOWN',
  8: 'REJECTD',
};

export function statOfMessageState(state: number): string | undefined {
  return MESSAGE_STATES[state];
}

/** The outcome a stat word says; undefined for a word no SMSC should send. */
export function outcomeOfStat(stat: string): ReceiptOutcome | undefined {
  return STAT_OUTCOMES[stat.toUpperCase()];
}
