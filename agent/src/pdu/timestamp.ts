// Service-centre timestamps: seven semi-octet pairs, year month day hour minute second and the
// zone in quarter hours, whose sign is bit 3 of the zone's first digit. The time is local to the
// zone given, so the instant is the fields read as UTC minus the zone offset.
import { PduFormatError } from './hex.ts';
import type { OctetReader } from './octet-reader.ts';

export interface Timestamp {
  date: Date;
  /** The sender's zone, minutes east of UTC. */
  offsetMinutes: number;
}

function swappedDecimal(octet: number): number {
  return (octet & 0x0f) * 10 + (octet >> 4);
}

export function decodeTimestamp(reader: OctetReader): Timestamp {
  const octets = reader.octets(7, 'a timestamp');
  const [year, month, day, hour, minute, second] = [...octets.subarray(0, 6)].map(swappedDecimal) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const zone = octets[6]!;
  const quarters = (zone & 0x07) * 10 + (zone >> 4);
  const offsetMinutes = (zone & 0x08 ? -1 : 1) * quarters * 15;
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 59) {
    throw new PduFormatError('a timestamp out of range');
  }
  // Two-digit years: SMS timestamps are read as 20YY.
  const utc = Date.UTC(2000 + year, month - 1, day, hour, minute, second);
  return { date: new Date(utc - offsetMinutes * 60_000), offsetMinutes };
}

/** For building DELIVER and STATUS-REPORT PDUs (the modem stand-in of the tests). */
export function encodeTimestamp(date: Date, offsetMinutes = 0): Uint8Array {
  const local = new Date(date.getTime() + offsetMinutes * 60_000);
  const fields = [
    local.getUTCFullYear() % 100,
    local.getUTCMonth() + 1,
    local.getUTCDate(),
    local.getUTCHours(),
    local.getUTCMinutes(),
    local.getUTCSeconds(),
  ];
  const swapped = (value: number): number => ((value % 10) << 4) | Math.floor(value / 10);
  const quarters = Math.round(Math.abs(offsetMinutes) / 15);
  const zone = swapped(quarters) | (offsetMinutes < 0 ? 0x08 : 0);
  return Uint8Array.from([...fields.map(swapped), zone]);
}
