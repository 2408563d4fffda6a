// A bound SMPP session written byte by byte: PDUs the smpp package would never encode (lengths
// that run past the end, TLVs of the wrong size) are sent as they are, and each answer is read
// back by its own length.
import smpp from 'smpp';
import { connect, type Socket } from 'node:net';
import type { IssuedCredential } from '../support/smpp-client.ts';

export interface RawAnswer {
  commandId: number;
  status: number;
  sequence: number;
}

export class RawSession {
  private buffered = Buffer.alloc(0);
  private readonly waiting: ((answer: RawAnswer | undefined) => void)[] = [];
  closed = false;

  private constructor(private readonly socket: Socket) {
    socket.on('data', (chunk) => {
      this.buffered = Buffer.concat([this.buffered, chunk]);
      while (this.buffered.length >= 16 && this.buffered.length >= this.buffered.readUInt32BE(0)) {
        const answer = { commandId: this.buffered.readUInt32BE(4), status: this.buffered.readUInt32BE(8), sequence: this.buffered.readUInt32BE(12) };
        this.buffered = this.buffered.subarray(this.buffered.readUInt32BE(0));
        this.waiting.shift()?.(answer);
      }
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      this.closed = true;
      for (const waiter of this.waiting.splice(0)) waiter(undefined);
    });
  }

  /** A connection bound as transceiver with the credential. */
  static async bound(port: number, credential: IssuedCredential): Promise<RawSession> {
    const socket = await new Promise<Socket>((resolve, reject) => {
      const opened = connect(port, '127.0.0.1', () => resolve(opened));
      opened.once('error', reject);
    });
    const session = new RawSession(socket);
    const answer = await session.exchange(encoded('bind_transceiver', { system_id: credential.system_id, password: credential.password }, 1));
    if (answer?.status !== 0) throw new Error(`bind refused: ${answer?.status}`);
    return session;
  }

  /** Writes the bytes; resolves with the next answer, or undefined when the gateway closed the connection. */
  exchange(bytes: Buffer): Promise<RawAnswer | undefined> {
    return new Promise((resolve) => {
      if (this.closed) return resolve(undefined);
      this.waiting.push(resolve);
      this.socket.write(bytes);
    });
  }

  close(): void {
    this.socket.destroy();
  }
}

/** A PDU as the smpp package encodes it. */
export function encoded(command: string, fields: Record<string, unknown>, sequence: number): Buffer {
  return new smpp.PDU(command, { ...fields, sequence_number: sequence }).toBuffer();
}

/** A PDU's bytes with `extra` appended and its command_length made to count them. */
export function withTail(pdu: Buffer, extra: Buffer): Buffer {
  const whole = Buffer.concat([pdu, extra]);
  whole.writeUInt32BE(whole.length, 0);
  return whole;
}

/** A TLV's bytes: tag, the length it claims, and the value it carries (which may be shorter). */
export function tlv(tag: number, claimedLength: number, value: Buffer): Buffer {
  const head = Buffer.alloc(4);
  head.writeUInt16BE(tag, 0);
  head.writeUInt16BE(claimedLength, 2);
  return Buffer.concat([head, value]);
}
