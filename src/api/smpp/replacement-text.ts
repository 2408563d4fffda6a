// The text of a replace_sm. SMPP 3.4's replace_sm has no data_coding: its short_message (or the
// message_payload TLV, which some ESMEs send with it) is in the coding of the message it
// replaces, so its raw octets are read in the submission's data_coding (and the credential's
// default alphabet for 0), then checked as submit_sm's text is. replace_sm has no esm_class
// either: a replacement is one whole message, never a concatenated part.
import type { DefaultAlphabet } from '../../modules/smpp/types.ts';
import { submittedText } from './short-message.ts';

export function replacementText(pdu: { short_message?: unknown; message_payload?: unknown }, dataCoding: number, defaultAlphabet: DefaultAlphabet): string {
  return submittedText({ data_coding: dataCoding, esm_class: 0, short_message: pdu.short_message, message_payload: pdu.message_payload }, defaultAlphabet).text;
}
