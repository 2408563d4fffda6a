// Lines a modem sends on its own, between or in the middle of command responses. +CMT and +CDS
// announce a PDU on the following line; the rest stand alone.

export type UnsolicitedEvent =
  /** +CMTI: an SMS was stored at storage/index. */
  | { type: 'stored-message'; storage: string; index: number }
  /** +CDSI: a status report was stored at storage/index. */
  | { type: 'stored-report'; storage: string; index: number }
  /** +CMT: an SMS handed over directly, not stored. */
  | { type: 'direct-message'; pdu: string; tpduLength: number | undefined }
  /** +CDS: a status report handed over directly. */
  | { type: 'direct-report'; pdu: string; tpduLength: number | undefined }
  /** RING, +CREG: n, ^RSSI... : nothing the driver acts on. */
  | { type: 'other'; line: string };

const STANDALONE_PREFIXES = [
  '+CMTI:',
  '+CDSI:',
  '+CBM:',
  'RING',
  '+CRING:',
  '+CLIP:',
  '+CREG:',
  '+CGREG:',
  '+CEREG:',
  '+CUSD:',
  '+CIEV:',
  '+CPIN:',
  '+CSQN:',
  '^', // vendor notices such as ^RSSI, ^BOOT, ^MODE
  'RDY',
  'NO CARRIER',
];

/** +CMT: and +CDS: come with their PDU on the next line. */
export function announcesPdu(line: string): 'direct-message' | 'direct-report' | undefined {
  if (line.startsWith('+CMT:')) return 'direct-message';
  if (line.startsWith('+CDS:')) return 'direct-report';
  return undefined;
}

export function isUnsolicited(line: string): boolean {
  return announcesPdu(line) !== undefined || STANDALONE_PREFIXES.some((prefix) => line.startsWith(prefix));
}

/** The TPDU length at the end of a +CMT: [<alpha>],<length> or +CDS: <length> line. */
export function announcedLength(line: string): number | undefined {
  const match = /,?\s*(\d+)\s*$/.exec(line.slice(line.indexOf(':') + 1));
  return match ? Number(match[1]) : undefined;
}

export function parseStandalone(line: string): UnsolicitedEvent {
  const stored = /^\+(CMTI|CDSI):\s*"([^"]*)"\s*,\s*(\d+)/.exec(line);
  if (stored) {
    return {
      type: stored[1] === 'CMTI' ? 'stored-message' : 'stored-report',
      storage: stored[2]!,
      index: Number(stored[3]),
    };
  }
  return { type: 'other', line };
}
