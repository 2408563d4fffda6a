// SMS-SUBMIT of a data SMS: 8-bit binary to an application port, as Android's sendDataMessage
// sends it. The user data header holds the 16-bit application port element (0x05: destination,
// then originator port 0), which leaves 133 of the 140 user data octets for the payload: one
// SMS, never split.
import { encodeAddress, encodeSmscAddress } from './address.ts';
import { FLAG_REJECT_DUPLICATES, FLAG_STATUS_REPORT, FLAG_USER_DATA_HEADER, MTI_SUBMIT, VPF_RELATIVE } from './first-octet.ts';
import { bytesToHex, PduFormatError } from './hex.ts';
import type { EncodedSubmit } from './submit.ts';
import { encodeRelativeValidity } from './validity-period.ts';

/** TP-DCS: general data coding, 8-bit data, no message class. */
export const DCS_8BIT = 0x04;
/** The header: its length octet, then element 0x05 (4 octets: destination and originator port). */
const PORT_HEADER_OCTETS = 7;
/** Payload octets one data SMS carries beside its port header. */
export const DATA_PAYLOAD_MAX = 140 - PORT_HEADER_OCTETS;

export interface DataSubmitRequest {
  phone: string;
  bytes: Uint8Array;
  /** Destination application port, 1-65535. */
  port: number;
  statusReport?: boolean;
  validityMinutes?: number;
  rejectDuplicates?: boolean;
  smsc?: string;
}

export function encodeDataSubmit(request: DataSubmitRequest): EncodedSubmit {
  if (request.bytes.length > DATA_PAYLOAD_MAX) throw new PduFormatError(`a data payload longer than ${DATA_PAYLOAD_MAX} octets`);
  if (!Number.isInteger(request.port) || request.port < 1 || request.port > 0xffff) throw new PduFormatError('a port outside 1-65535');
  let firstOctet = MTI_SUBMIT | FLAG_USER_DATA_HEADER;
  if (request.rejectDuplicates) firstOctet |= FLAG_REJECT_DUPLICATES;
  if (request.validityMinutes !== undefined) firstOctet |= VPF_RELATIVE;
  if (request.statusReport) firstOctet |= FLAG_STATUS_REPORT;
  const header = [PORT_HEADER_OCTETS - 1, 0x05, 0x04, request.port >> 8, request.port & 0xff, 0x00, 0x00];
  const tpdu = Uint8Array.from([
    firstOctet,
    0x00, // TP-MR: the modem puts in its own and tells it in +CMGS
    ...encodeAddress(request.phone),
    0x00, // TP-PID
    DCS_8BIT,
    ...(request.validityMinutes !== undefined ? [encodeRelativeValidity(request.validityMinutes)] : []),
    header.length + request.bytes.length, // TP-UDL in octets for 8-bit data
    ...header,
    ...request.bytes,
  ]);
  return { pdu: bytesToHex(encodeSmscAddress(request.smsc)) + bytesToHex(tpdu), tpduLength: tpdu.length };
}
