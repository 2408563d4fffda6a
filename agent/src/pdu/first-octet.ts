// The first octet of a TPDU: its type (TP-MTI, bits 1-0) and flags whose meaning depends on it.

export const MTI_DELIVER = 0b00; // also a DELIVER-REPORT in the other direction
export const MTI_SUBMIT = 0b01;
export const MTI_STATUS_REPORT = 0b10;

export const FLAG_REJECT_DUPLICATES = 0x04; // SUBMIT: TP-RD
export const FLAG_MORE_MESSAGES = 0x04; // DELIVER / STATUS-REPORT: TP-MMS (set: no more waiting)
export const VPF_NONE = 0x00;
export const VPF_RELATIVE = 0x10; // bits 4-3 = 10: one octet of relative validity
export const VPF_MASK = 0x18;
export const FLAG_STATUS_REPORT = 0x20; // SUBMIT: TP-SRR, DELIVER: TP-SRI, STATUS-REPORT: TP-SRQ
export const FLAG_USER_DATA_HEADER = 0x40; // TP-UDHI
export const FLAG_REPLY_PATH = 0x80; // TP-RP

/** Octets of TP-VP for each TP-VPF value (bits 4-3): none, enhanced (7), relative (1), absolute (7). */
export function validityPeriodOctets(firstOctet: number): number {
  switch (firstOctet & VPF_MASK) {
    case 0x10:
      return 1;
    case 0x08:
    case 0x18:
      return 7;
    default:
      return 0;
  }
}
