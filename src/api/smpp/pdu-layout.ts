// What a PDU's own lengths say, checked against its bytes before the codec reads it. The codec
// (the smpp package) slices a field or TLV that runs past the end of the PDU short without a
// word, reads a fixed-size TLV of the wrong size as if it were right (or throws, which would end
// the session), and lets a user data header claim more octets than the message has. Each of
// these is answered here with its own command_status, on a session that stays open. The size of
// the text is checked here too, in octets, before anything decodes it: a message_payload can be
// 16 KB (the codec's PDU limit) while the gateway sends at most MESSAGE_MAX_CHARACTERS. The
// text's raw octets are handed on from here too: the gateway reads them itself (short-message.ts).
import defs from 'smpp/lib/defs.js';
import { STATUS, type CommandStatus } from './command-status.ts';
import { MESSAGE_MAX_OCTETS } from './message-limits.ts';

export interface LayoutProblem {
  status: CommandStatus;
  reason: string;
}

const HEADER_OCTETS = 16;
const TLV_HEADER_OCTETS = 4;
const MESSAGE_PAYLOAD_TAG = 0x0424;
/** esm_class bit 6: the message starts with a user data header. */
const UDH_INDICATOR = 0x40;
const UCS2 = 8;

/** Where a PDU carries its text, as raw octets: undefined for a field or TLV it does not have. */
export interface TextOctets {
  short_message?: Buffer;
  message_payload?: Buffer;
}

/** What the PDU's lengths say: the first thing wrong with them (undefined when they hold together), and its text's raw octets. */
export interface Layout {
  problem?: LayoutProblem | undefined;
  text?: TextOctets;
}

export function readLayout(pdu: Buffer): Layout {
  const problem = (found: LayoutProblem): Layout => ({ problem: found });
  const command = defs.commandsById[pdu.readUInt32BE(4)]?.command;
  // An unknown command id has no fields to check: it is answered generic_nack as it is.
  if (!command) return {};
  const fields: Record<string, number> = {};
  let shortMessage: Buffer | undefined;
  let offset = HEADER_OCTETS;
  for (const [name, param] of Object.entries(defs.commands[command]!.params ?? {})) {
    // Mandatory fields left off at the end are read as empty, as the codec reads them; only one
    // that starts and then runs past the end is wrong.
    if (offset >= pdu.length) break;
    const type = param.type;
    if (type === defs.types.int8) {
      fields[name] = pdu[offset]!;
      offset += 1;
    } else if (type === defs.types.cstring) {
      const end = pdu.indexOf(0, offset);
      offset = end < 0 ? pdu.length : end + 1;
    } else if (type === defs.types.buffer) {
      const length = pdu[offset]!;
      if (offset + 1 + length > pdu.length) return problem({ status: STATUS.ESME_RINVMSGLEN, reason: `${name} says ${length} octets; the PDU has ${pdu.length - offset - 1} left` });
      if (name === 'short_message') shortMessage = pdu.subarray(offset + 1, offset + 1 + length);
      offset += 1 + length;
    } else {
      const end = addressListEnd(pdu, offset, type === defs.types.dest_address_array);
      if (end === undefined) return problem({ status: STATUS.ESME_RINVCMDLEN, reason: `${name} runs past the end of the PDU` });
      offset = end;
    }
  }
  let payload: Buffer | undefined;
  while (offset < pdu.length) {
    if (offset + TLV_HEADER_OCTETS > pdu.length) return problem({ status: STATUS.ESME_RINVTLVSTREAM, reason: `${pdu.length - offset} octets after the last TLV are not a TLV` });
    const tag = pdu.readUInt16BE(offset);
    const length = pdu.readUInt16BE(offset + 2);
    const start = offset + TLV_HEADER_OCTETS;
    if (start + length > pdu.length) return problem({ status: STATUS.ESME_RINVTLVLEN, reason: `TLV 0x${tag.toString(16).padStart(4, '0')} says ${length} octets; the PDU has ${pdu.length - start} left` });
    const size = fixedSize(tag);
    if (size !== undefined && length !== size) return problem({ status: STATUS.ESME_RINVTLVLEN, reason: `TLV ${defs.tlvsById[tag]!.tag} has ${length} octets; it takes ${size}` });
    if (tag === MESSAGE_PAYLOAD_TAG) payload = pdu.subarray(start, start + length);
    offset = start + length;
  }
  if (payload && payload.length > MESSAGE_MAX_OCTETS) {
    return problem({ status: STATUS.ESME_RINVMSGLEN, reason: `message_payload has ${payload.length} octets; a message the gateway sends has at most ${MESSAGE_MAX_OCTETS}` });
  }
  // The text is in short_message, or in message_payload when short_message is empty (as the codec reads it).
  const text = shortMessage && shortMessage.length > 0 ? shortMessage : payload;
  return {
    problem: text ? textProblem(text, fields.esm_class ?? 0, fields.data_coding) : undefined,
    text: { ...(shortMessage ? { short_message: shortMessage } : {}), ...(payload ? { message_payload: payload } : {}) },
  };
}

/** A user data header longer than the message or than itself, and UCS-2 in an odd number of octets. */
function textProblem(text: Buffer, esmClass: number, dataCoding: number | undefined): LayoutProblem | undefined {
  let headerOctets = 0;
  if ((esmClass & UDH_INDICATOR) !== 0 && text.length > 0) {
    headerOctets = 1 + text[0]!;
    if (headerOctets > text.length) return { status: STATUS.ESME_RINVMSGLEN, reason: `the user data header says ${text[0]} octets; the message has ${text.length - 1}` };
    for (let element = 1; element < headerOctets; ) {
      if (element + 2 > headerOctets || element + 2 + text[element + 1]! > headerOctets) {
        return { status: STATUS.ESME_RINVESMCLASS, reason: 'an information element runs past the end of the user data header' };
      }
      element += 2 + text[element + 1]!;
    }
  }
  if (dataCoding === UCS2 && (text.length - headerOctets) % 2 !== 0) return { status: STATUS.ESME_RINVMSGLEN, reason: 'the UCS-2 message has an odd number of octets' };
  return undefined;
}

/** Where a submit_multi's dest_address list (or a response's unsuccess_sme list) ends; undefined: past the PDU. */
function addressListEnd(pdu: Buffer, offset: number, destinations: boolean): number | undefined {
  let count = pdu[offset]!;
  let at = offset + 1;
  const cstringEnd = (from: number) => {
    const end = pdu.indexOf(0, from);
    return end < 0 ? undefined : end + 1;
  };
  while (count-- > 0) {
    if (at >= pdu.length) return undefined;
    if (destinations) {
      // dest_flag 1: TON, NPI and an address; otherwise a distribution list's name.
      const flag = pdu[at]!;
      const end = cstringEnd(flag === 1 ? at + 3 : at + 1);
      if (end === undefined || (flag === 1 && at + 3 > pdu.length)) return undefined;
      at = end;
    } else {
      const end = cstringEnd(at + 2);
      if (end === undefined || end + 4 > pdu.length) return undefined;
      at = end + 4;
    }
  }
  return at;
}

/** The size a TLV of this tag always has (1, 2 or 4 octets), or undefined when it varies or is unknown. */
function fixedSize(tag: number): number | undefined {
  const type = defs.tlvsById[tag]?.type;
  if (type === defs.types.tlv.int8) return 1;
  if (type === defs.types.tlv.int16) return 2;
  if (type === defs.types.tlv.int32) return 4;
  return undefined;
}
