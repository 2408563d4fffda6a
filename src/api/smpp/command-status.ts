// The SMPP command_status codes the gateway answers with (docs/smpp.md lists them).
export const STATUS = {
  ESME_ROK: 0x0000,
  ESME_RINVMSGLEN: 0x0001,
  ESME_RINVCMDLEN: 0x0002,
  ESME_RINVCMDID: 0x0003,
  ESME_RINVBNDSTS: 0x0004,
  ESME_RALYBND: 0x0005,
  ESME_RINVREGDLVFLG: 0x0007,
  ESME_RSYSERR: 0x0008,
  ESME_RINVSRCADR: 0x000a,
  ESME_RINVDSTADR: 0x000b,
  ESME_RINVMSGID: 0x000c,
  ESME_RBINDFAIL: 0x000d,
  ESME_RCANCELFAIL: 0x0011,
  ESME_RREPLACEFAIL: 0x0013,
  ESME_RINVNUMDESTS: 0x0033,
  ESME_RINVESMCLASS: 0x0043,
  ESME_RSUBMITFAIL: 0x0045,
  ESME_RTHROTTLED: 0x0058,
  ESME_RINVSCHED: 0x0061,
  ESME_RINVEXPIRY: 0x0062,
  ESME_RQUERYFAIL: 0x0067,
  /** "Error in the optional part of the PDU body": octets after the last TLV that are no TLV. */
  ESME_RINVTLVSTREAM: 0x00c0,
  ESME_ROPTPARNOTALLWD: 0x00c1,
  /** SMPP 3.4's ESME_RINVPARLEN: a TLV running past the PDU, or of the wrong size for its tag. */
  ESME_RINVTLVLEN: 0x00c2,
  /** "ESME Receiver Reject Message": the destination opted out (docs/opt-out.md). */
  ESME_RX_R_APPNACK: 0x0066,
  ESME_RINVTLVVAL: 0x00c4,
  ESME_RINVDCS: 0x0104,
} as const;

export type CommandStatus = (typeof STATUS)[keyof typeof STATUS];

const NAMES = new Map<number, string>(Object.entries(STATUS).map(([name, code]) => [code, name]));

/** The name of a status, for metrics and logs (ESME_RX for one not listed here). */
export function statusName(code: number): string {
  return NAMES.get(code) ?? `0x${code.toString(16).padStart(8, '0')}`;
}

/** A submission the gateway refuses, with the code that says why and a message for the logs. */
export class SmppRefusal extends Error {
  constructor(
    readonly status: CommandStatus,
    message: string,
  ) {
    super(message);
    this.name = 'SmppRefusal';
  }
}
