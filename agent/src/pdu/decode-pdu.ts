// Reads any PDU a modem hands over (+CMGR, +CMGL, +CMT, +CDS): a received SMS (DELIVER), one we
// stored or sent (SUBMIT), or a status report. Whether an SMSC address comes first is told by the
// TPDU length the modem announces next to the PDU; without it, one is assumed, as most modems add it.
import { decodeAddress, decodeSmscAddress, type Address } from './address.ts';
import { alphabetOf } from './data-coding.ts';
import {
  FLAG_REJECT_DUPLICATES,
  FLAG_STATUS_REPORT,
  FLAG_USER_DATA_HEADER,
  MTI_DELIVER,
  MTI_STATUS_REPORT,
  MTI_SUBMIT,
  VPF_MASK,
  VPF_RELATIVE,
  validityPeriodOctets,
} from './first-octet.ts';
import { hexToBytes, PduFormatError } from './hex.ts';
import { OctetReader } from './octet-reader.ts';
import { decodeTimestamp } from './timestamp.ts';
import { deliveryStatus, type DeliveryOutcome } from './tp-status.ts';
import { decodeUserData } from './user-data.ts';
import type { Concatenation } from './user-data-header.ts';
import { relativeValidityMinutes } from './validity-period.ts';

export interface DecodedDeliver {
  type: 'deliver';
  smsc?: string;
  sender: Address;
  serviceCentreTime: Date;
  /** The sender's zone at the centre, minutes east of UTC. */
  offsetMinutes: number;
  text: string;
  concatenation?: Concatenation;
  alphabet: 'gsm7' | '8bit' | 'ucs2';
}

export interface DecodedSubmit {
  type: 'submit';
  smsc?: string;
  messageReference: number;
  recipient: Address;
  statusReportRequested: boolean;
  rejectDuplicates: boolean;
  validityMinutes?: number;
  text: string;
  concatenation?: Concatenation;
  alphabet: 'gsm7' | '8bit' | 'ucs2';
}

export interface DecodedStatusReport {
  type: 'status-report';
  smsc?: string;
  /** TP-MR of the part the report is about. */
  messageReference: number;
  recipient: Address;
  serviceCentreTime: Date;
  dischargeTime: Date;
  status: number;
  outcome: DeliveryOutcome;
  reason: string;
}

export type DecodedPdu = DecodedDeliver | DecodedSubmit | DecodedStatusReport;

/**
 * @param tpduLength the length the modem gave with the PDU (octets without the SMSC address);
 *   when it equals the whole PDU, no SMSC address is in front.
 */
export function decodePdu(hex: string, tpduLength?: number): DecodedPdu {
  const bytes = hexToBytes(hex);
  const reader = new OctetReader(bytes);
  const smscAddress = tpduLength !== undefined && tpduLength === bytes.length ? undefined : decodeSmscAddress(reader);
  const smsc = smscAddress ? { smsc: smscAddress.value } : {};
  const firstOctet = reader.octet('the first octet');
  switch (firstOctet & 0b11) {
    case MTI_DELIVER:
      return { ...decodeDeliver(reader, firstOctet), ...smsc };
    case MTI_SUBMIT:
      return { ...decodeSubmit(reader, firstOctet), ...smsc };
    case MTI_STATUS_REPORT:
      return { ...decodeStatusReport(reader), ...smsc };
    default:
      throw new PduFormatError('a reserved message type');
  }
}

function decodeDeliver(reader: OctetReader, firstOctet: number): DecodedDeliver {
  const sender = decodeAddress(reader);
  reader.octet('TP-PID');
  const alphabet = alphabetOf(reader.octet('TP-DCS'));
  const { date, offsetMinutes } = decodeTimestamp(reader);
  const userData = decodeUserData(reader, alphabet, (firstOctet & FLAG_USER_DATA_HEADER) !== 0);
  return { type: 'deliver', sender, serviceCentreTime: date, offsetMinutes, alphabet, ...userData };
}

function decodeSubmit(reader: OctetReader, firstOctet: number): DecodedSubmit {
  const messageReference = reader.octet('TP-MR');
  const recipient = decodeAddress(reader);
  reader.octet('TP-PID');
  const alphabet = alphabetOf(reader.octet('TP-DCS'));
  const validity = reader.octets(validityPeriodOctets(firstOctet), 'TP-VP');
  const validityMinutes = (firstOctet & VPF_MASK) === VPF_RELATIVE ? relativeValidityMinutes(validity[0]!) : undefined;
  const userData = decodeUserData(reader, alphabet, (firstOctet & FLAG_USER_DATA_HEADER) !== 0);
  return {
    type: 'submit',
    messageReference,
    recipient,
    statusReportRequested: (firstOctet & FLAG_STATUS_REPORT) !== 0,
    rejectDuplicates: (firstOctet & FLAG_REJECT_DUPLICATES) !== 0,
    ...(validityMinutes !== undefined ? { validityMinutes } : {}),
    alphabet,
    ...userData,
  };
}

function decodeStatusReport(reader: OctetReader): DecodedStatusReport {
  const messageReference = reader.octet('TP-MR');
  const recipient = decodeAddress(reader);
  const serviceCentreTime = decodeTimestamp(reader).date;
  const dischargeTime = decodeTimestamp(reader).date;
  const status = reader.octet('TP-ST');
  // Optional parameters (TP-PI and what it announces) may follow; nothing in them matters here.
  return {
    type: 'status-report',
    messageReference,
    recipient,
    serviceCentreTime,
    dischargeTime,
    status,
    ...deliveryStatus(status),
  };
}
