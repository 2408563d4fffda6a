// The SMS PDU codec: GSM-7 and UCS-2 text, splitting into parts, SMS-SUBMIT encoding and the
// decoding of what a modem hands back (DELIVER, SUBMIT, STATUS-REPORT).
export {
  GSM7_BASIC_TABLE,
  GSM7_ESCAPE,
  GSM7_EXTENSION_TABLE,
  decodeGsm7,
  encodeGsm7,
  fitsGsm7,
  gsm7Septets,
} from './gsm7-alphabet.ts';
export {
  GSM7_PART_SIZE,
  GSM7_SINGLE_LIMIT,
  UCS2_PART_SIZE,
  UCS2_SINGLE_LIMIT,
  splitText,
  textUnits,
  type SplitText,
  type TextEncoding,
} from './split-text.ts';
export { packSeptets, unpackSeptets } from './septet-packing.ts';
export { decodeUcs2, encodeUcs2 } from './ucs2.ts';
export { encodeAddress, encodeSmscAddress, type Address, type NumberType } from './address.ts';
export { encodeSubmit, type EncodedSubmit, type EncodedText, type SubmitRequest } from './submit.ts';
export { DATA_PAYLOAD_MAX, encodeDataSubmit, type DataSubmitRequest } from './data-submit.ts';
export {
  decodePdu,
  type DecodedDeliver,
  type DecodedPdu,
  type DecodedStatusReport,
  type DecodedSubmit,
} from './decode-pdu.ts';
export { deliveryStatus, type DeliveryOutcome, type DeliveryStatus } from './tp-status.ts';
export type { Concatenation } from './user-data-header.ts';
export { bytesToHex, hexToBytes, isHex, PduFormatError } from './hex.ts';
