// Reads an ESME's PDUs off its socket in place of the codec's own reader, so that each PDU's
// lengths are checked against its bytes (pdu-layout.ts) before the codec reads it. The codec's
// reader slices past-the-end fields short and throws on a TLV of the wrong size, after which it
// reads nothing more from that connection; here such a PDU is handed on with its problem (and
// its header only, to be answered), and the next PDU is read as usual. Only bytes whose length
// cannot be a PDU's end the reading: the next PDU cannot be found after them.
import smpp, { type PDU } from 'smpp';
import type { Socket } from 'node:net';
import { STATUS } from './command-status.ts';
import { readLayout, type LayoutProblem } from './pdu-layout.ts';

const HEADER_OCTETS = 16;

export interface PduListener {
  /** A PDU read; `problem` says what is wrong with it (it then carries its header only). */
  pdu(pdu: PDU, problem: LayoutProblem | undefined): void;
  /** Bytes that are not a PDU: nothing after them can be read. */
  unreadable(reason: string): void;
}

/** Reads the socket's PDUs from now on, handing each to `listener`. */
export function readPdus(socket: Socket, listener: PduListener): void {
  const reader = new PduReader(socket, listener);
  // The codec's reader was installed when its session was made, before anything could arrive.
  socket.removeAllListeners('readable');
  socket.on('readable', () => reader.read());
}

class PduReader {
  private head: Buffer | undefined;
  private stopped = false;

  constructor(
    private readonly socket: Socket,
    private readonly listener: PduListener,
  ) {}

  read(): void {
    while (!this.stopped) {
      if (!this.head) {
        const head = this.socket.read(4) as Buffer | null;
        // At the end of the stream read() hands over what is left, however short.
        if (!head || head.length < 4) return;
        const length = head.readUInt32BE(0);
        if (length < HEADER_OCTETS || length > smpp.PDU.maxLength) {
          this.stopped = true;
          return this.listener.unreadable(`command_length ${length} is not a PDU's (${HEADER_OCTETS} to ${smpp.PDU.maxLength})`);
        }
        this.head = head;
      }
      const length = this.head.readUInt32BE(0);
      const rest = this.socket.read(length - 4) as Buffer | null;
      if (!rest) return;
      if (rest.length < length - 4) {
        this.stopped = true;
        return;
      }
      const raw = Buffer.concat([this.head, rest]);
      this.head = undefined;
      const { pdu, problem } = decoded(raw);
      this.listener.pdu(pdu, problem);
    }
  }
}

function decoded(raw: Buffer): { pdu: PDU; problem: LayoutProblem | undefined } {
  const { problem, text } = readLayout(raw);
  if (!problem) {
    try {
      // The text stays in raw octets: the codec reads data_coding 1 as GSM-7 and knows nothing of
      // a credential's default alphabet; the session reads it (short-message.ts).
      return { pdu: Object.assign(new smpp.PDU(raw), text), problem: undefined };
    } catch {
      // The lengths hold together and the codec still could not read it: the gateway's own failing.
      return { pdu: headerOf(raw), problem: { status: STATUS.ESME_RSYSERR, reason: 'the PDU could not be decoded' } };
    }
  }
  return { pdu: headerOf(raw), problem };
}

/** The PDU's header alone (command, status, sequence number): enough to answer it. */
function headerOf(raw: Buffer): PDU {
  const header = Buffer.from(raw.subarray(0, HEADER_OCTETS));
  header.writeUInt32BE(HEADER_OCTETS, 0);
  return new smpp.PDU(header);
}
