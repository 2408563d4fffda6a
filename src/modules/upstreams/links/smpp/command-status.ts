// The command_status an SMSC answers, in the words routing needs: whether the same link may take
// the SMS after a wait ("later") or will not take it at all ("never", routing moves on). A code
// that says the SMS itself is wrong (its addresses, its coding, its fields) is "never"; a code
// that says the SMSC or the moment is wrong (a full queue, throttling, a system error, a failure
// it does not explain) is "later". Codes this table does not know, vendors' own among them, are
// "later": a retry costs less than an SMS dropped for a reason nobody read.
export const STATUS = {
  ESME_ROK: 0x00,
  ESME_RINVMSGLEN: 0x01,
  ESME_RINVCMDLEN: 0x02,
  ESME_RINVCMDID: 0x03,
  ESME_RINVBNDSTS: 0x04,
  ESME_RALYBND: 0x05,
  ESME_RINVPRTFLG: 0x06,
  ESME_RINVREGDLVFLG: 0x07,
  ESME_RSYSERR: 0x08,
  ESME_RINVSRCADR: 0x0a,
  ESME_RINVDSTADR: 0x0b,
  ESME_RINVMSGID: 0x0c,
  ESME_RBINDFAIL: 0x0d,
  ESME_RINVPASWD: 0x0e,
  ESME_RINVSYSID: 0x0f,
  ESME_RMSGQFUL: 0x14,
  ESME_RINVSERTYP: 0x15,
  ESME_RINVESMCLASS: 0x43,
  ESME_RSUBMITFAIL: 0x45,
  ESME_RINVSRCTON: 0x48,
  ESME_RINVSRCNPI: 0x49,
  ESME_RINVDSTTON: 0x50,
  ESME_RINVDSTNPI: 0x51,
  ESME_RINVSYSTYP: 0x53,
  ESME_RINVREPFLAG: 0x54,
  ESME_RTHROTTLED: 0x58,
  ESME_RINVSCHED: 0x61,
  ESME_RINVEXPIRY: 0x62,
  ESME_RINVDFTMSGID: 0x63,
  ESME_RX_T_APPN: 0x64,
  ESME_RX_P_APPN: 0x65,
  ESME_RX_R_APPN: 0x66,
  ESME_RINVTLVSTREAM: 0xc0,
  ESME_RTLVNOTALLWD: 0xc1,
  ESME_RINVTLVLEN: 0xc2,
  ESME_RMISSINGTLV: 0xc3,
  ESME_RINVTLVVAL: 0xc4,
  ESME_RDELIVERYFAILURE: 0xfe,
  ESME_RUNKNOWNERR: 0xff,
  ESME_RSERTYPUNAUTH: 0x100,
  ESME_RPROHIBITED: 0x101,
  ESME_RSERTYPUNAVAIL: 0x102,
  ESME_RSERTYPDENIED: 0x103,
  ESME_RINVDCS: 0x104,
  ESME_RINVSRCADDRSUBUNIT: 0x105,
  ESME_RINVDSTADDRSUBUNIT: 0x106,
} as const;

const NAMES = new Map<number, string>(Object.entries(STATUS).map(([name, code]) => [code, name]));

/** The SMS as submitted will never be taken by this SMSC (SMPP 3.4 5.1.3, SMPP 5.0 4.7.6). */
const PERMANENT = new Set<number>([
  STATUS.ESME_RINVMSGLEN,
  STATUS.ESME_RINVCMDLEN,
  STATUS.ESME_RINVCMDID,
  STATUS.ESME_RINVPRTFLG,
  STATUS.ESME_RINVREGDLVFLG,
  STATUS.ESME_RINVSRCADR,
  STATUS.ESME_RINVDSTADR,
  STATUS.ESME_RINVSERTYP,
  STATUS.ESME_RINVESMCLASS,
  STATUS.ESME_RINVSRCTON,
  STATUS.ESME_RINVSRCNPI,
  STATUS.ESME_RINVDSTTON,
  STATUS.ESME_RINVDSTNPI,
  STATUS.ESME_RINVSYSTYP,
  STATUS.ESME_RINVREPFLAG,
  STATUS.ESME_RINVSCHED,
  STATUS.ESME_RINVEXPIRY,
  STATUS.ESME_RINVDFTMSGID,
  // "Permanent application error" and "receiver reject": the destination refuses it (opted out, barred).
  STATUS.ESME_RX_P_APPN,
  STATUS.ESME_RX_R_APPN,
  STATUS.ESME_RINVTLVSTREAM,
  STATUS.ESME_RTLVNOTALLWD,
  STATUS.ESME_RINVTLVLEN,
  STATUS.ESME_RMISSINGTLV,
  STATUS.ESME_RINVTLVVAL,
  STATUS.ESME_RSERTYPUNAUTH,
  STATUS.ESME_RPROHIBITED,
  STATUS.ESME_RSERTYPDENIED,
  STATUS.ESME_RINVDCS,
  STATUS.ESME_RINVSRCADDRSUBUNIT,
  STATUS.ESME_RINVDSTADDRSUBUNIT,
]);

/** The provider asks the ESME to slow down: the link waits a moment before it submits again. */
export function isThrottling(status: number): boolean {
  return status === STATUS.ESME_RTHROTTLED || status === STATUS.ESME_RMSGQFUL;
}

export function retryOf(status: number): 'later' | 'never' {
  return PERMANENT.has(status) ? 'never' : 'later';
}

/** "0x0000000b", as the link contract writes a provider's code. */
export function statusCode(status: number): string {
  return `0x${(status >>> 0).toString(16).padStart(8, '0')}`;
}

/** "ESME_RINVDSTADR (0x0000000b)", or the code alone for one without a name here. */
export function describeStatus(status: number): string {
  const name = NAMES.get(status);
  return name ? `${name} (${statusCode(status)})` : statusCode(status);
}
