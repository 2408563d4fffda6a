// Reads a PDU front to back; every read checks the bounds so a truncated PDU from a modem is a
// PduFormatError, never an undefined value travelling on.
import { PduFormatError } from './hex.ts';

export class OctetReader {
  private position = 0;

  constructor(private readonly bytes: Uint8Array) {}

  get remaining(): number {
    return this.bytes.length - this.position;
  }

  octet(what: string): number {
    const value = this.bytes[this.position];
    if (value === undefined) throw new PduFormatError(`PDU ends before ${what}`);
    this.position++;
    return value;
  }

  octets(count: number, what: string): Uint8Array {
    if (count < 0 || this.position + count > this.bytes.length) {
      throw new PduFormatError(`PDU ends inside ${what}`);
    }
    const slice = this.bytes.subarray(this.position, this.position + count);
    this.position += count;
    return slice;
  }

  /** What is left, for user data whose announced length a sloppy modem may get wrong. */
  rest(): Uint8Array {
    return this.octets(this.remaining, 'the rest');
  }
}
