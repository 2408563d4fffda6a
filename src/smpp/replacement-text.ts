// The text of a replace_sm. SMPP 3.4's replace_sm has no data_coding: its short_message (or the
// message_payload TLV, which some ESMEs send with it) is in the coding of the message it
// replaces, so the codec hands over raw octets, read here in the submission's data_coding with
// the codec's own decoder, then checked as submit_sm's text is. replace_sm has no esm_class
// either: a replacement is one whole message, never a concatenated part.
import defs from 'smpp/lib/defs.js';
import { submittedText } from './short-message.ts';
import { SmppRefusal, STATUS } from './command-status.ts';

const UCS2 = 8;

export function replacementText(pdu: { short_message?: unknown; message_payload?: unknown }, dataCoding: number): string {
  const decode = (value: unknown) => {
    if (!Buffer.isBuffer(value)) return value;
    // The codec's UCS-2 decoder drops an odd last octet without a word.
    if (dataCoding === UCS2 && value.length % 2 !== 0) throw new SmppRefusal(STATUS.ESME_RINVMSGLEN, 'the UCS-2 message has an odd number of octets');
    return defs.filters.message.decode.call({ data_coding: dataCoding, esm_class: 0 }, value, true);
  };
  return submittedText({ data_coding: dataCoding, short_message: decode(pdu.short_message), message_payload: decode(pdu.message_payload) }).text;
}
