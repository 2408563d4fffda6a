// Reading the answers of the commands the driver uses. Each looks for its own line and ignores the
// rest, so a stray line inside a response changes nothing.

export function findLine(lines: readonly string[], prefix: string): string | undefined {
  return lines.find((line) => line.startsWith(prefix));
}

/** The fields after "+XXX: ", split on commas outside quotes, quotes removed. */
export function fieldsOf(line: string): string[] {
  const body = line.slice(line.indexOf(':') + 1).trim();
  const fields: string[] = [];
  let current = '';
  let quoted = false;
  for (const char of body) {
    if (char === '"') quoted = !quoted;
    else if (char === ',' && !quoted) {
      fields.push(current.trim());
      current = '';
    } else current += char;
  }
  fields.push(current.trim());
  return fields;
}

export interface StoredPdu {
  index: number;
  pdu: string;
  /** The TPDU length the modem announced (without the SMSC address). */
  tpduLength: number | undefined;
}

const HEX_LINE = /^[0-9A-Fa-f]+$/;

/** +CMGR: <stat>,[<alpha>],<length> then the PDU; nothing when the slot is empty. */
export function parseReadMessage(lines: readonly string[], index: number): StoredPdu | undefined {
  const header = lines.findIndex((line) => line.startsWith('+CMGR:'));
  if (header < 0) return undefined;
  const pdu = lines.slice(header + 1).find((line) => HEX_LINE.test(line));
  if (!pdu) return undefined;
  return { index, pdu, tpduLength: lastNumber(lines[header]!) };
}

/** +CMGL: <index>,<stat>,[<alpha>],<length> each followed by its PDU. */
export function parseMessageList(lines: readonly string[]): StoredPdu[] {
  const stored: StoredPdu[] = [];
  let header: { index: number; tpduLength: number | undefined } | undefined;
  for (const line of lines) {
    if (line.startsWith('+CMGL:')) {
      const index = Number(fieldsOf(line)[0]);
      header = Number.isInteger(index) ? { index, tpduLength: lastNumber(line) } : undefined;
    } else if (header && HEX_LINE.test(line)) {
      stored.push({ index: header.index, pdu: line, tpduLength: header.tpduLength });
      header = undefined;
    }
  }
  return stored;
}

function lastNumber(line: string): number | undefined {
  const last = fieldsOf(line).at(-1);
  return last && /^\d+$/.test(last) ? Number(last) : undefined;
}

/** +CSQ: <rssi>,<ber>: 0-31 scaled to 0-100; 99 (unknown) gives nothing. */
export function parseSignalPercent(lines: readonly string[]): number | undefined {
  const line = findLine(lines, '+CSQ:');
  if (!line) return undefined;
  const rssi = Number(fieldsOf(line)[0]);
  if (!Number.isInteger(rssi) || rssi < 0 || rssi > 31) return undefined;
  return Math.round((rssi / 31) * 100);
}

/**
 * +CBC: <bcs>,<bcl>[,<mV>]. Modems disagree on what <bcs> means (charging, or "no battery"), and a
 * USB modem without a battery often says 0,0; so only a level from 1 to 100 is believed, and
 * whether it charges is left unsaid.
 */
export function parseBatteryLevel(lines: readonly string[]): number | undefined {
  const line = findLine(lines, '+CBC:');
  if (!line) return undefined;
  const [status, level] = fieldsOf(line).map(Number);
  if (status === 2 || level === undefined || !Number.isInteger(level) || level < 1 || level > 100) return undefined;
  return level;
}

/** +COPS: <mode>[,<format>,<oper>[,<act>]]: the operator's name, when registered. */
export function parseOperatorName(lines: readonly string[]): string | undefined {
  const line = findLine(lines, '+COPS:');
  const name = line ? fieldsOf(line)[2] : undefined;
  return name ? name : undefined;
}

/**
 * +CNUM: [<alpha>],<number>,<type>[,...]: the SIM's own number, as the SIM stores it (many SIMs
 * store none: then nothing, or an ERROR). Only a number in international form is believed: type
 * 145, or one written with "+"; a national one would need a country the agent does not know.
 */
export function parseOwnNumber(lines: readonly string[]): string | undefined {
  const line = findLine(lines, '+CNUM:');
  if (!line) return undefined;
  const [, number, type] = fieldsOf(line);
  if (!number) return undefined;
  const digits = number.replace(/^\+/, '');
  if (!/^[1-9][0-9]{6,14}$/.test(digits)) return undefined;
  return number.startsWith('+') || type === '145' ? `+${digits}` : undefined;
}

/** +CREG: [<n>,]<stat>[,...]: 1 home, 5 roaming. The query form always carries <n> first. */
export function parseRegistration(lines: readonly string[]): number | undefined {
  const line = findLine(lines, '+CREG:');
  if (!line) return undefined;
  const fields = fieldsOf(line);
  const stat = Number(fields.length >= 2 ? fields[1] : fields[0]);
  return Number.isInteger(stat) ? stat : undefined;
}

export const REGISTRATION_STATES: Readonly<Record<number, string>> = {
  0: 'not registered, not searching',
  1: 'registered, home network',
  2: 'not registered, searching',
  3: 'registration denied',
  4: 'unknown',
  5: 'registered, roaming',
};

/** +CPMS: "SM",used,total,...: the storage reads and deletes go to. */
export function parseReadStorage(lines: readonly string[]): string | undefined {
  const line = findLine(lines, '+CPMS:');
  const storage = line ? fieldsOf(line)[0] : undefined;
  return storage && /^[A-Z]{2}$/.test(storage) ? storage : undefined;
}

/** +CMGS: <mr>: the message reference the network knows the part by. */
export function parseMessageReference(lines: readonly string[]): number | undefined {
  const line = findLine(lines, '+CMGS:');
  const reference = line ? Number(fieldsOf(line)[0]) : NaN;
  return Number.isInteger(reference) ? reference : undefined;
}
