// PDUs a network would hand a modem: received SMS (DELIVER) and status reports. Only the stand-in
// modem of the tests builds these; the agent only reads them.
import { bytesToHex, encodeAddress, splitText } from '../../../agent/src/pdu/index.ts';
import { encodeTimestamp } from '../../../agent/src/pdu/timestamp.ts';
import { encodeUserData } from '../../../agent/src/pdu/user-data.ts';
import { concatenationHeader } from '../../../agent/src/pdu/user-data-header.ts';

export interface BuiltPdu {
  /** Hex with an SMSC address in front, as modems list them. */
  pdu: string;
  tpduLength: number;
}

const SMSC = '07919471000000F0'; // +491700000000

export function deliverPdus(sender: string, text: string, options: { reference?: number; time?: Date } = {}): BuiltPdu[] {
  const { encoding, parts } = splitText(text);
  const time = encodeTimestamp(options.time ?? new Date(), 60);
  return parts.map((part, index) => {
    const header = parts.length > 1 ? concatenationHeader(options.reference ?? 42, parts.length, index + 1) : undefined;
    const tpdu = Uint8Array.from([
      0x04 | (header ? 0x40 : 0),
      ...encodeAddress(sender),
      0x00,
      encoding === 'gsm7' ? 0x00 : 0x08,
      ...time,
      ...encodeUserData(part, encoding, header),
    ]);
    return { pdu: SMSC + bytesToHex(tpdu), tpduLength: tpdu.length };
  });
}

export function statusReportPdu(reference: number, recipient: string, status: number, time = new Date()): BuiltPdu {
  const tpdu = Uint8Array.from([
    0x06,
    reference,
    ...encodeAddress(recipient),
    ...encodeTimestamp(time, 60),
    ...encodeTimestamp(time, 60),
    status,
  ]);
  return { pdu: `00${bytesToHex(tpdu)}`, tpduLength: tpdu.length };
}
