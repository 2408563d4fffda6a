// Concatenated SMS: an ESME splits a long text into parts, numbered by a user data header
// (information element 0x00 with an 8-bit reference, 0x08 with a 16-bit one) or by the SAR TLVs
// (sar_msg_ref_num, sar_total_segments, sar_segment_seqnum). The gateway joins the parts into
// one SMS (a phone splits it again as its network needs), and answers every part with the id
// that SMS will have. Parts wait in memory; a message whose parts stop coming is dropped after
// PARTS_WAIT_MS.
import { SmppRefusal, STATUS } from './command-status.ts';

export interface PartNumber {
  reference: number;
  total: number;
  sequence: number;
}

export const PARTS_WAIT_MS = 120_000;
/** Parts of unfinished messages one session may hold (a client that never finishes one cannot grow it). */
export const MAX_PENDING_MESSAGES = 1_000;

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

interface Gathering {
  smsId: string;
  parts: Map<number, string>;
  total: number;
  timer: NodeJS.Timeout;
}

/** Joins the parts of messages, keyed by what the ESME says makes them one (addresses and reference). */
export class PartAssembler {
  private readonly gathering = new Map<string, Gathering>();

  constructor(
    private readonly newId: () => string,
    private readonly onDropped: (parts: number, total: number) => void,
  ) {}

  /**
   * Adds a part. Answers the SMS id every part of the message is answered with, and the joined
   * text once the last part is in (the message is then forgotten).
   */
  add(key: string, part: PartNumber, text: string): { smsId: string; whole?: string } {
    const fullKey = `${key}|${part.reference}|${part.total}`;
    let entry = this.gathering.get(fullKey);
    if (!entry) {
      if (this.gathering.size >= MAX_PENDING_MESSAGES) throw new SmppRefusal(STATUS.ESME_RTHROTTLED, 'too many concatenated messages are unfinished');
      const timer = setTimeout(() => {
        this.gathering.delete(fullKey);
        this.onDropped(entry!.parts.size, part.total);
      }, PARTS_WAIT_MS);
      timer.unref();
      entry = { smsId: this.newId(), parts: new Map(), total: part.total, timer };
      this.gathering.set(fullKey, entry);
    }
    entry.parts.set(part.sequence, text);
    if (entry.parts.size < entry.total) return { smsId: entry.smsId };
    clearTimeout(entry.timer);
    this.gathering.delete(fullKey);
    const whole = Array.from({ length: entry.total }, (_, i) => entry!.parts.get(i + 1) ?? '').join('');
    return { smsId: entry.smsId, whole };
  }

  /** The session ended: what it gathered is dropped. */
  clear(): void {
    for (const entry of this.gathering.values()) clearTimeout(entry.timer);
    this.gathering.clear();
  }
}
