// SMS-SUBMIT: what the modem sends on AT+CMGS. A text becomes one PDU per part; each comes with
// the length AT+CMGS wants, the TPDU in octets without the SMSC address in front of it.
import { encodeAddress, encodeSmscAddress } from './address.ts';
import { DCS_GSM7, DCS_UCS2 } from './data-coding.ts';
import {
  FLAG_REJECT_DUPLICATES,
  FLAG_STATUS_REPORT,
  FLAG_USER_DATA_HEADER,
  MTI_SUBMIT,
  VPF_RELATIVE,
} from './first-octet.ts';
import { bytesToHex } from './hex.ts';
import { splitText, type TextEncoding } from './split-text.ts';
import { encodeUserData } from './user-data.ts';
import { concatenationHeader } from './user-data-header.ts';
import { encodeRelativeValidity } from './validity-period.ts';

export interface SubmitRequest {
  /** E.164 (+ and digits) or digits as dialled. */
  phone: string;
  text: string;
  /** Ask the network for a status report on each part (TP-SRR). */
  statusReport?: boolean;
  /** Relative validity; none: the service centre's default. */
  validityMinutes?: number;
  /** TP-RD: the centre drops a part it already holds with the same reference and recipient. */
  rejectDuplicates?: boolean;
  /** Service centre number; none: the SIM's (00 in front of the TPDU). */
  smsc?: string;
  /** The concatenation reference (0-255) of a long text; ignored for a one-part text. */
  concatReference?: number;
}

export interface EncodedSubmit {
  /** Hexadecimal, SMSC address included: what follows the > prompt. */
  pdu: string;
  /** TPDU octets without the SMSC address: the argument of AT+CMGS. */
  tpduLength: number;
}

export interface EncodedText {
  encoding: TextEncoding;
  parts: EncodedSubmit[];
}

export function encodeSubmit(request: SubmitRequest): EncodedText {
  const { encoding, parts } = splitText(request.text);
  const smsc = encodeSmscAddress(request.smsc);
  const destination = encodeAddress(request.phone);
  const encoded = parts.map((part, index) => {
    const header = parts.length > 1 ? concatenationHeader(request.concatReference ?? 0, parts.length, index + 1) : undefined;
    let firstOctet = MTI_SUBMIT;
    if (request.rejectDuplicates) firstOctet |= FLAG_REJECT_DUPLICATES;
    if (request.validityMinutes !== undefined) firstOctet |= VPF_RELATIVE;
    if (request.statusReport) firstOctet |= FLAG_STATUS_REPORT;
    if (header) firstOctet |= FLAG_USER_DATA_HEADER;
    const tpdu = Uint8Array.from([
      firstOctet,
      0x00, // TP-MR: the modem puts in its own and tells it in +CMGS
      ...destination,
      0x00, // TP-PID: plain SMS
      encoding === 'gsm7' ? DCS_GSM7 : DCS_UCS2,
      ...(request.validityMinutes !== undefined ? [encodeRelativeValidity(request.validityMinutes)] : []),
      ...encodeUserData(part, encoding, header),
    ]);
    return { pdu: bytesToHex(smsc) + bytesToHex(tpdu), tpduLength: tpdu.length };
  });
  return { encoding, parts: encoded };
}
