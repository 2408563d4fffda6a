// The text of a submit_sm: from short_message, or from the message_payload TLV when
// short_message is empty, in the data coding the ESME named. The PDU codec (the smpp package)
// has already split off the user data header and turned the octets into a string for the
// codings we accept: GSM-7 one septet per octet (0, 1, and the message-class form 0xF0-0xF3),
// Latin-1 (3) and UCS-2 (8). Anything else is refused with ESME_RINVDCS.
import { SmppRefusal, STATUS } from './command-status.ts';

/** What the codec hands over for short_message and message_payload. */
export interface CodecMessage {
  udh?: Buffer[];
  message: string | Buffer;
}

export interface SubmittedText {
  text: string;
  /** The information elements of the user data header (concatenation among them); none without one. */
  udh: Buffer[];
}

export function acceptedDataCoding(dataCoding: number): boolean {
  if (dataCoding === 0 || dataCoding === 1 || dataCoding === 3 || dataCoding === 8) return true;
  // 1111 0 c cc: GSM-7 with a message class.
  return (dataCoding & 0xfc) === 0xf0;
}

export function submittedText(pdu: { data_coding?: number | null; short_message?: unknown; message_payload?: unknown }): SubmittedText {
  const dataCoding = pdu.data_coding ?? 0;
  if (!acceptedDataCoding(dataCoding)) {
    throw new SmppRefusal(STATUS.ESME_RINVDCS, `data_coding ${dataCoding} is not one the gateway sends (0, 1, 3, 8, 0xF0-0xF3)`);
  }
  const short = asCodecMessage(pdu.short_message);
  const payload = asCodecMessage(pdu.message_payload);
  if (short && messageLength(short) > 0 && payload && messageLength(payload) > 0) {
    throw new SmppRefusal(STATUS.ESME_RINVMSGLEN, 'short_message and message_payload both carry text; send one');
  }
  const chosen = payload && messageLength(payload) > 0 ? payload : short;
  if (!chosen || messageLength(chosen) === 0) throw new SmppRefusal(STATUS.ESME_RINVMSGLEN, 'the message is empty');
  if (typeof chosen.message !== 'string') throw new SmppRefusal(STATUS.ESME_RINVDCS, 'the message could not be read in its data_coding');
  // UCS-2 in an odd number of octets is refused before it is read (pdu-layout.ts); half a
  // surrogate pair is not text in any coding a phone can send.
  if (!chosen.message.isWellFormed()) throw new SmppRefusal(STATUS.ESME_RINVDCS, 'the UCS-2 message has half a surrogate pair');
  return { text: chosen.message, udh: chosen.udh ?? [] };
}

function asCodecMessage(value: unknown): CodecMessage | undefined {
  if (value === undefined || value === null) return undefined;
  if (Buffer.isBuffer(value)) return { message: value };
  if (typeof value === 'object' && 'message' in value) return value as CodecMessage;
  return undefined;
}

function messageLength(message: CodecMessage): number {
  return message.message.length + (message.udh?.length ?? 0);
}
