// The parts of incoming SMS that came in pieces, held until the last one arrives. Held in
// memory, and within bounds: at most MAX_HELD SMS at once and each for at most HOLD_MS; past
// either, what arrived is let go as it is (the text with a part missing beats no text: an SMSC
// that lost a part will not send it again). A part arriving twice counts once.
import type { Clock } from '../../../../common/clock.ts';
import { decodeIncomingText, type IncomingPart } from './incoming-text.ts';

export const MAX_HELD = 500;
export const HOLD_MS = 120_000;

export interface HeldSms<T> {
  /** What came with the first part (addresses): the SMS is told with it. */
  meta: T;
  parts: Map<number, IncomingPart>;
  total: number;
  since: number;
}

export interface LetGo<T> {
  meta: T;
  text: string;
  /** false: some parts never came. */
  complete: boolean;
  missing: number;
}

export class IncomingParts<T> {
  private readonly held = new Map<string, HeldSms<T>>();

  constructor(
    private readonly clock: Clock,
    private readonly maxHeld = MAX_HELD,
    private readonly holdMs = HOLD_MS,
  ) {}

  get size(): number {
    return this.held.size;
  }

  /**
   * Holds a part. `key` tells SMS apart (the sender, the recipient and the reference). Returns
   * the SMS this part completed, if it did, and those let go to make room for it.
   */
  add(key: string, part: IncomingPart, meta: T): { completed: LetGo<T> | undefined; letGo: LetGo<T>[] } {
    const place = part.place!;
    let sms = this.held.get(key);
    if (!sms) {
      sms = { meta, parts: new Map(), total: place.total, since: this.clock.now() };
      this.held.set(key, sms);
    }
    sms.parts.set(place.seq, part);
    let completed: LetGo<T> | undefined;
    if (sms.parts.size >= sms.total) {
      this.held.delete(key);
      completed = joined(sms);
    }
    const letGo: LetGo<T>[] = [];
    while (this.held.size > this.maxHeld) {
      // A Map keeps insertion order: the first key is the SMS held longest.
      const [oldest, given] = this.held.entries().next().value!;
      this.held.delete(oldest);
      letGo.push(joined(given));
    }
    return { completed, letGo };
  }

  /** Lets go of the SMS held past the time limit. */
  sweep(): LetGo<T>[] {
    const now = this.clock.now();
    const out: LetGo<T>[] = [];
    for (const [key, sms] of this.held) {
      if (now - sms.since < this.holdMs) continue;
      this.held.delete(key);
      out.push(joined(sms));
    }
    return out;
  }
}

function joined<T>(sms: HeldSms<T>): LetGo<T> {
  const parts = [...sms.parts.entries()].sort(([a], [b]) => a - b).map(([, part]) => part);
  const first = parts[0]!;
  // Octets are joined before decoding when the parts share a coding: a sender that cut a
  // surrogate pair or an escape pair in two still reads as one character.
  const sameCoding = parts.every((part) => part.dataCoding === first.dataCoding && part.language === first.language);
  const text = sameCoding
    ? decodeIncomingText(Buffer.concat(parts.map((part) => part.octets)), first.dataCoding, first.language)
    : parts.map((part) => decodeIncomingText(part.octets, part.dataCoding, part.language)).join('');
  const missing = Math.max(0, sms.total - parts.length);
  return { meta: sms.meta, text, complete: missing === 0, missing };
}
