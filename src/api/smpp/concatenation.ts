// Concatenated SMS: an ESME splits a long text into parts, numbered by a user data header
// (information element 0x00 with an 8-bit reference, 0x08 with a 16-bit one) or by the SAR TLVs
// (sar_msg_ref_num, sar_total_segments, sar_segment_seqnum). The gateway joins the parts into
// one SMS (a phone splits it again as its network needs), and answers every part with the id
// that SMS will have. Parts wait in memory; a message whose parts stop coming is dropped after
// PARTS_WAIT_MS.
//
// What waits is bounded as each part arrives, never once the message is whole: a part that would
// make the joined text longer than the gateway sends is refused at once (and so is every later
// part of that message), and what one bind and one account may hold is capped (docs/smpp.md).
import { countCharacters } from '../../common/characters.ts';
import { MESSAGE_MAX_CHARACTERS } from '../../modules/messages/schema.ts';
import { SmppRefusal, STATUS } from './command-status.ts';
import { MESSAGE_MAX_UNITS } from './message-limits.ts';
import type { PartHolds } from './part-holds.ts';

export interface PartNumber {
  reference: number;
  total: number;
  sequence: number;
}

export const PARTS_WAIT_MS = 120_000;
/** Unfinished messages one bind may hold (a client that never finishes one cannot grow it). */
export const MAX_PENDING_MESSAGES = 1_000;
/** Text one bind's unfinished messages may hold, in UTF-16 units: about 380 messages of 170 characters. */
export const MAX_HELD_UNITS_PER_BIND = 64 * 1024;

/** The part number a PDU carries: from its user data header or its SAR TLVs; none for a whole SMS. */
export function partNumber(udh: Buffer[], pdu: { sar_msg_ref_num?: number; sar_total_segments?: number; sar_segment_seqnum?: number }): PartNumber | undefined {
  for (const element of udh) {
    if (element[0] === 0x00) {
      if (element.length !== 5 || element[1] !== 3) throw new SmppRefusal(STATUS.ESME_RINVESMCLASS, 'the concatenation header (0x00) must have 3 octets');
      return checked({ reference: element[2]!, total: element[3]!, sequence: element[4]! }, STATUS.ESME_RINVESMCLASS);
    }
    if (element[0] === 0x08) {
      if (element.length !== 6 || element[1] !== 4) throw new SmppRefusal(STATUS.ESME_RINVESMCLASS, 'the concatenation header (0x08) must have 4 octets');
      return checked({ reference: element.readUInt16BE(2), total: element[4]!, sequence: element[5]! }, STATUS.ESME_RINVESMCLASS);
    }
  }
  const sar = [pdu.sar_msg_ref_num, pdu.sar_total_segments, pdu.sar_segment_seqnum];
  if (sar.every((value) => value === undefined)) return undefined;
  if (sar.some((value) => value === undefined)) throw new SmppRefusal(STATUS.ESME_RINVTLVVAL, 'sar_msg_ref_num, sar_total_segments and sar_segment_seqnum go together');
  return checked({ reference: pdu.sar_msg_ref_num!, total: pdu.sar_total_segments!, sequence: pdu.sar_segment_seqnum! }, STATUS.ESME_RINVTLVVAL);
}

function checked(part: PartNumber, status: typeof STATUS.ESME_RINVESMCLASS | typeof STATUS.ESME_RINVTLVVAL): PartNumber {
  if (part.total < 1 || part.sequence < 1 || part.sequence > part.total) {
    throw new SmppRefusal(status, `part ${part.sequence} of ${part.total} is not a part number`);
  }
  return part;
}

interface HeldPart {
  text: string;
  /** Its characters, counted no further than one past the limit. */
  characters: number;
}

interface Gathering {
  smsId: string;
  accountId: string;
  parts: Map<number, HeldPart>;
  total: number;
  /** UTF-16 units of the parts held. */
  units: number;
  characters: number;
  /** Refused as too long: it holds no text, and its later parts are refused too. */
  refused: boolean;
  /** Part numbers answered, refused ones included: once all were, a refused message is forgotten. */
  answered: Set<number>;
  timer: NodeJS.Timeout;
}

/** Joins the parts of messages, keyed by what the ESME says makes them one (addresses and reference). */
export class PartAssembler {
  private readonly gathering = new Map<string, Gathering>();
  /** UTF-16 units all of this bind's unfinished messages hold. */
  private units = 0;

  constructor(
    private readonly newId: () => string,
    /** What the account's binds on this node hold together. */
    private readonly holds: PartHolds,
    private readonly onDropped: (parts: number, total: number) => void,
  ) {}

  /**
   * Adds a part. Answers the SMS id every part of the message is answered with, and the joined
   * text once the last part is in (the message is then forgotten). A part that makes the message
   * too long is refused ESME_RINVMSGLEN, one past what may be held ESME_RTHROTTLED.
   */
  add(accountId: string, key: string, part: PartNumber, text: string): { smsId: string; whole?: string } {
    const fullKey = `${key}|${part.reference}|${part.total}`;
    const entry = this.gathering.get(fullKey) ?? this.begin(fullKey, accountId, part.total);
    if (entry.refused) {
      entry.answered.add(part.sequence);
      this.forgetWhenAnswered(fullKey, entry);
      throw new SmppRefusal(STATUS.ESME_RINVMSGLEN, `an earlier part made this message longer than ${MESSAGE_MAX_CHARACTERS} characters`);
    }
    const previous = entry.parts.get(part.sequence);
    const units = entry.units - (previous?.text.length ?? 0) + text.length;
    // Measured by size first, then by characters counted no further than the limit.
    const characters = units > MESSAGE_MAX_UNITS ? 0 : countCharacters(text, MESSAGE_MAX_CHARACTERS);
    const joinedAtLeast = entry.characters - (previous?.characters ?? 0) + characters - (entry.parts.size - (previous ? 1 : 0));
    if (units > MESSAGE_MAX_UNITS || joinedAtLeast > MESSAGE_MAX_CHARACTERS) {
      entry.answered.add(part.sequence);
      this.refuse(fullKey, entry);
      throw new SmppRefusal(STATUS.ESME_RINVMSGLEN, `with this part the message has more than ${MESSAGE_MAX_CHARACTERS} characters; the gateway takes at most ${MESSAGE_MAX_CHARACTERS}`);
    }
    const growth = units - entry.units;
    if (growth > 0 && (this.units + growth > MAX_HELD_UNITS_PER_BIND || !this.holds.reserve(accountId, 0, growth))) {
      this.dropIfEmpty(fullKey, entry);
      throw new SmppRefusal(STATUS.ESME_RTHROTTLED, 'the unfinished concatenated messages of this bind or account hold as much text as they may');
    }
    if (growth < 0) this.holds.release(accountId, 0, -growth);
    this.units += growth;
    entry.units = units;
    entry.characters += characters - (previous?.characters ?? 0);
    entry.parts.set(part.sequence, { text, characters });
    entry.answered.add(part.sequence);
    if (entry.parts.size < entry.total) return { smsId: entry.smsId };
    const whole = Array.from({ length: entry.total }, (_, i) => entry.parts.get(i + 1)!.text).join('');
    this.forget(fullKey, entry);
    return { smsId: entry.smsId, whole };
  }

  /** The session ended: what it gathered is dropped. */
  clear(): void {
    for (const [key, entry] of this.gathering) this.forget(key, entry);
  }

  private begin(fullKey: string, accountId: string, total: number): Gathering {
    if (this.gathering.size >= MAX_PENDING_MESSAGES || !this.holds.reserve(accountId, 1, 0)) {
      throw new SmppRefusal(STATUS.ESME_RTHROTTLED, 'too many concatenated messages are unfinished on this bind or account');
    }
    const timer = setTimeout(() => {
      const entry = this.gathering.get(fullKey);
      if (!entry) return;
      this.forget(fullKey, entry);
      if (!entry.refused) this.onDropped(entry.parts.size, total);
    }, PARTS_WAIT_MS);
    timer.unref();
    const entry: Gathering = { smsId: this.newId(), accountId, parts: new Map(), total, units: 0, characters: 0, refused: false, answered: new Set(), timer };
    this.gathering.set(fullKey, entry);
    return entry;
  }

  private refuse(fullKey: string, entry: Gathering): void {
    this.release(entry);
    entry.refused = true;
    this.forgetWhenAnswered(fullKey, entry);
  }

  /** A refused message is remembered until each of its parts was answered, so the ESME hears one answer for all. */
  private forgetWhenAnswered(fullKey: string, entry: Gathering): void {
    if (entry.answered.size >= entry.total) this.forget(fullKey, entry);
  }

  /** A message begun by a part that was then throttled holds nothing: it is not kept. */
  private dropIfEmpty(fullKey: string, entry: Gathering): void {
    if (entry.parts.size === 0) this.forget(fullKey, entry);
  }

  private forget(fullKey: string, entry: Gathering): void {
    if (this.gathering.get(fullKey) !== entry) return;
    clearTimeout(entry.timer);
    this.gathering.delete(fullKey);
    this.release(entry);
    this.holds.release(entry.accountId, 1, 0);
  }

  /** Gives back the text the message holds. */
  private release(entry: Gathering): void {
    this.units -= entry.units;
    this.holds.release(entry.accountId, 0, entry.units);
    entry.units = 0;
    entry.characters = 0;
    entry.parts.clear();
  }
}
