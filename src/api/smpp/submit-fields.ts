// The fields of submit_sm and submit_multi, read and checked: registered_delivery, esm_class,
// the schedule and validity times, priority, the destination and the text's length. Each bad one
// is an SmppRefusal with its own ESME_R* code.
import type { PDU } from 'smpp';
import { exceedsCharacters } from '../../common/characters.ts';
import { MESSAGE_MAX_CHARACTERS } from '../../modules/messages/schema.ts';
import { SmppRefusal, STATUS } from './command-status.ts';
import { readSmppTime } from './smpp-time.ts';

export interface SubmissionFields {
  sourceAddr: string;
  registeredDelivery: number;
  sendAt: Date | undefined;
  validUntil: Date | undefined;
  priority: number;
  /** The data_coding the text came in (kept: a replace_sm's text is read in it). */
  dataCoding: number;
}

/** The fields of a submission every destination shares, each checked. */
export function readSubmissionFields(pdu: PDU, now: number): SubmissionFields {
  const registeredDelivery = readRegisteredDelivery(pdu);
  // Bits 2-5 of esm_class name the message type: only an ordinary message may be submitted.
  if ((Number(pdu.esm_class ?? 0) & 0x3c) !== 0) throw new SmppRefusal(STATUS.ESME_RINVESMCLASS, 'esm_class names a message type an ESME cannot submit');
  // Port-addressed messages are for an application on the phone, not its inbox: sent as an SMS
  // they would reach the wrong place.
  if (pdu.source_port !== undefined || pdu.dest_port !== undefined) {
    throw new SmppRefusal(STATUS.ESME_ROPTPARNOTALLWD, 'source_port and dest_port address an application; the gateway sends text SMS');
  }
  const sendAt = readSmppTime(pdu.schedule_delivery_time, STATUS.ESME_RINVSCHED, 'schedule_delivery_time');
  const validUntil = readSmppTime(pdu.validity_period, STATUS.ESME_RINVEXPIRY, 'validity_period');
  if (validUntil && validUntil.getTime() <= now) throw new SmppRefusal(STATUS.ESME_RINVEXPIRY, 'validity_period has passed');
  return {
    sourceAddr: typeof pdu.source_addr === 'string' ? pdu.source_addr : '',
    registeredDelivery,
    sendAt: sendAt && sendAt.getTime() > now ? sendAt : undefined,
    validUntil,
    // priority_flag 0-3: the gateway's queue orders by priority, the higher first.
    priority: Math.min(Math.max(Number(pdu.priority_flag ?? 0), 0), 3) * 10,
    dataCoding: Number(pdu.data_coding ?? 0),
  };
}

/** data_sm's validity: the qos_time_to_live TLV, seconds from now (1 to a year); none: no limit. */
export function readTimeToLive(pdu: PDU, now: number): Date | undefined {
  if (pdu.qos_time_to_live === undefined) return undefined;
  const seconds = Number(pdu.qos_time_to_live);
  if (!Number.isInteger(seconds) || seconds < 1 || seconds * 1000 > MAX_AHEAD_MS) {
    throw new SmppRefusal(STATUS.ESME_RINVEXPIRY, 'qos_time_to_live must be 1 second to a year');
  }
  return new Date(now + seconds * 1000);
}

/** registered_delivery 0-0x1F, its low bits (the receipt wanted) not 3. */
export function readRegisteredDelivery(pdu: PDU): number {
  const registeredDelivery = Number(pdu.registered_delivery ?? 0);
  if (registeredDelivery > 0x1f || (registeredDelivery & 0x03) === 0x03) {
    throw new SmppRefusal(STATUS.ESME_RINVREGDLVFLG, `registered_delivery ${registeredDelivery} is not a valid value`);
  }
  return registeredDelivery;
}

/** A schedule or validity more than a year ahead is refused (as over the API), and a validity already past. */
export function checkAhead(sendAt: Date | undefined, validUntil: Date | undefined, now: number): void {
  if (sendAt && sendAt.getTime() - now > MAX_AHEAD_MS) throw new SmppRefusal(STATUS.ESME_RINVSCHED, 'schedule_delivery_time is more than a year ahead');
  if (validUntil && validUntil.getTime() <= now) throw new SmppRefusal(STATUS.ESME_RINVEXPIRY, 'validity_period has passed');
  if (validUntil && validUntil.getTime() - now > MAX_AHEAD_MS) throw new SmppRefusal(STATUS.ESME_RINVEXPIRY, 'validity_period is more than a year ahead');
}

/** How far ahead an SMS may be scheduled or valid: a year, as over the API. */
const MAX_AHEAD_MS = 366 * 24 * 60 * 60 * 1000;

/** Types of number a destination may have: unknown, international, national. */
const TON_UNKNOWN = 0;
const TON_INTERNATIONAL = 1;
const TON_NATIONAL = 2;
/** Numbering plans of a phone number: unknown, ISDN/E.164. */
const PHONE_NPIS = new Set([0, 1]);

/**
 * The SMS's destination as the API's `phone` takes it. Digits only (a leading "+" allowed);
 * international TON (1) gets its "+"; national (2) and unknown (0) TON without "+" are read in
 * DEFAULT_PHONE_REGION, and refused without one: accepting what cannot be sent would lose it.
 * Any other TON (alphanumeric, abbreviated...) or NPI (not ISDN/E.164 or unknown) is refused.
 */
export function readDestination(ton: unknown, npi: unknown, address: unknown, region: string | undefined): string {
  if (typeof address !== 'string' || address.trim() === '') throw new SmppRefusal(STATUS.ESME_RINVDSTADR, 'destination_addr is empty');
  const trimmed = address.trim();
  if (!/^\+?[0-9]{1,20}$/.test(trimmed)) throw new SmppRefusal(STATUS.ESME_RINVDSTADR, 'destination_addr is not a phone number (digits, optionally after "+")');
  if (!PHONE_NPIS.has(Number(npi ?? 0))) throw new SmppRefusal(STATUS.ESME_RINVDSTADR, `dest_addr_npi ${Number(npi)} is not a phone numbering plan (0 or 1)`);
  const typeOfNumber = Number(ton ?? 0);
  if (trimmed.startsWith('+')) {
    if (typeOfNumber !== TON_UNKNOWN && typeOfNumber !== TON_INTERNATIONAL) throw new SmppRefusal(STATUS.ESME_RINVDSTADR, 'a destination with "+" is international');
    return trimmed;
  }
  if (typeOfNumber === TON_INTERNATIONAL) return `+${trimmed}`;
  if (typeOfNumber !== TON_UNKNOWN && typeOfNumber !== TON_NATIONAL) {
    throw new SmppRefusal(STATUS.ESME_RINVDSTADR, `dest_addr_ton ${typeOfNumber} is not a phone number's (0 unknown, 1 international, 2 national)`);
  }
  if (!region) throw new SmppRefusal(STATUS.ESME_RINVDSTADR, 'a national number needs DEFAULT_PHONE_REGION, which is not set; send it international (TON 1)');
  return trimmed;
}

/**
 * At most MESSAGE_MAX_CHARACTERS characters, as over the API. Measured by size first and then
 * counted no further than the limit: segmenting a whole 16 KB text into characters would take
 * the process's CPU and hundreds of megabytes for a message refused anyway.
 */
export function checkLength(text: string): void {
  if (exceedsCharacters(text, MESSAGE_MAX_CHARACTERS)) {
    throw new SmppRefusal(STATUS.ESME_RINVMSGLEN, `the message has more than ${MESSAGE_MAX_CHARACTERS} characters; the gateway takes at most ${MESSAGE_MAX_CHARACTERS}`);
  }
}
