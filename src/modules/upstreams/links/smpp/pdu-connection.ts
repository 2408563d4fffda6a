// One TCP (or TLS) connection to an SMSC, speaking PDUs: requests sent with a sequence number and
// answered as promises (each with its own timeout), and the SMSC's own requests handed on. The
// smpp package writes and reads the PDUs; the socket is read here rather than by its Session, for
// three reasons: a response that never comes fails its request after a timeout instead of
// waiting forever, a PDU the codec cannot read is answered instead of ending all reading, and the
// text fields stay raw octets (the codec would decode them by its own idea of data_coding 0; the
// link reads them, incoming-text.ts).
import net from 'node:net';
import tls from 'node:tls';
import smpp, { type PDU } from 'smpp';
import defs from 'smpp/lib/defs.js';
import { connectError, guardedLookup, literalRefusal, type SmppDestinationGuard } from './destination.ts';

const HEADER_OCTETS = 16;
/** command_id bit 31: the PDU answers a request. */
const RESPONSE = 0x80000000;
/** How long a finished connection waits for the SMSC to close its side. */
const FINISH_GRACE_MS = 1_000;
const ESME_RINVCMDLEN = 0x02;
const ESME_RINVCMDID = 0x03;

export interface ConnectTarget {
  host: string;
  port: number;
  tls: boolean;
  ca?: string;
  connectTimeoutMs: number;
  /** The outbound destination guard; without it any address is connected to. */
  guard?: SmppDestinationGuard;
}

export interface ConnectionListener {
  /** A request from the SMSC (deliver_sm, enquire_link, unbind, ...): answer it with respond(). */
  request(pdu: PDU): void;
  /** The connection ended; `reason` in words. Said once. */
  closed(reason: string): void;
}

export class ResponseTimeout extends Error {}
export class ConnectionClosed extends Error {
  /** `written`: the request had gone out (the peer may have acted on it) before the connection ended. */
  constructor(
    reason: string,
    readonly written: boolean,
  ) {
    super(reason);
  }
}

interface Pending {
  resolve(pdu: PDU): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

export class PduConnection {
  private sequence = 0;
  private readonly pending = new Map<number, Pending>();
  private head: Buffer | undefined;
  private closedFor: string | undefined;

  private constructor(
    private readonly socket: net.Socket,
    private readonly listener: ConnectionListener,
  ) {
    socket.on('readable', () => this.read());
    socket.on('error', (error) => this.end(`socket error: ${error.message}`));
    socket.on('close', () => this.end('the SMSC closed the connection'));
  }

  /** Opens a connection; rejects when the SMSC cannot be reached (or its certificate is not trusted) in time. */
  static open(target: ConnectTarget, listener: ConnectionListener): Promise<PduConnection> {
    const refused = literalRefusal(target.guard, target.host);
    if (refused) return Promise.reject(refused);
    return new Promise((resolve, reject) => {
      const lookup = guardedLookup(target.guard);
      const socket = target.tls
        ? tls.connect({
            host: target.host,
            port: target.port,
            ...lookup,
            rejectUnauthorized: true,
            ...(target.ca ? { ca: [...tls.rootCertificates, target.ca] } : {}),
            ...(net.isIP(target.host) ? {} : { servername: target.host }),
          })
        : net.connect({ host: target.host, port: target.port, ...lookup });
      socket.setNoDelay(true);
      const fail = (error: Error) => {
        clearTimeout(timer);
        socket.destroy();
        reject(connectError(error, target.host));
      };
      const timer = setTimeout(() => fail(new Error(`no connection within ${target.connectTimeoutMs} ms`)), target.connectTimeoutMs);
      socket.once('error', fail);
      socket.once(target.tls ? 'secureConnect' : 'connect', () => {
        clearTimeout(timer);
        socket.off('error', fail);
        resolve(new PduConnection(socket, listener));
      });
    });
  }

  get open(): boolean {
    return this.closedFor === undefined;
  }

  /** Sends a request; resolves with its response, rejects on timeout or when the connection ends first. */
  request(command: string, fields: Record<string, unknown>, timeoutMs: number): Promise<PDU> {
    if (this.closedFor !== undefined) return Promise.reject(new ConnectionClosed(this.closedFor, false));
    this.sequence = this.sequence >= 0x7fffffff ? 1 : this.sequence + 1;
    const sequence = this.sequence;
    const pdu = new smpp.PDU(command, { ...fields, sequence_number: sequence });
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(sequence);
        reject(new ResponseTimeout(`no ${command}_resp within ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(sequence, { resolve, reject, timer });
      this.socket.write(pdu.toBuffer());
    });
  }

  /** Answers a request of the SMSC's. */
  respond(request: PDU, status = 0, fields: Record<string, unknown> = {}): void {
    if (this.closedFor !== undefined) return;
    // A request with no response of its own (outbind, or one the codec does not know) is answered generic_nack.
    const command = defs.commands[`${request.command}_resp`] ? `${request.command}_resp` : 'generic_nack';
    this.socket.write(new smpp.PDU(command, { ...fields, command_status: status, sequence_number: request.sequence_number }).toBuffer());
  }

  /** Ends the connection after what was written has gone out. */
  finish(reason: string): void {
    // end() lets the last writes (an unbind_resp) go out; a peer that never closes its side is cut off.
    this.socket.end();
    setTimeout(() => this.socket.destroy(), FINISH_GRACE_MS).unref();
    this.end(reason, false);
  }

  destroy(reason: string): void {
    this.socket.destroy();
    this.end(reason);
  }

  private end(reason: string, destroy = true): void {
    if (this.closedFor !== undefined) return;
    this.closedFor = reason;
    for (const [sequence, waiting] of this.pending) {
      clearTimeout(waiting.timer);
      waiting.reject(new ConnectionClosed(reason, true));
      this.pending.delete(sequence);
    }
    if (destroy) this.socket.destroy();
    this.listener.closed(reason);
  }

  private read(): void {
    while (this.closedFor === undefined) {
      if (!this.head) {
        const head = this.socket.read(4) as Buffer | null;
        if (!head || head.length < 4) return;
        const length = head.readUInt32BE(0);
        if (length < HEADER_OCTETS || length > smpp.PDU.maxLength) {
          // Nothing after bytes like these can be found: the stream is lost.
          return this.destroy(`the SMSC sent a command_length of ${length}, which no PDU has`);
        }
        this.head = head;
      }
      const length = this.head.readUInt32BE(0);
      const rest = this.socket.read(length - 4) as Buffer | null;
      if (!rest) return;
      const raw = Buffer.concat([this.head, rest]);
      this.head = undefined;
      this.handle(raw);
    }
  }

  private handle(raw: Buffer): void {
    const pdu = readRaw(raw);
    if (pdu.command_id & RESPONSE) {
      const waiting = this.pending.get(pdu.sequence_number);
      if (!waiting) return;
      this.pending.delete(pdu.sequence_number);
      clearTimeout(waiting.timer);
      waiting.resolve(pdu);
      return;
    }
    if (pdu.command === 'unknown') return this.respond(pdu, ESME_RINVCMDID);
    if (pdu.unreadable) return this.respond(pdu, ESME_RINVCMDLEN);
    this.listener.request(pdu);
  }
}

/**
 * The PDU as the codec reads it, but with no field decoded (the codec's decode filters turn the
 * text into strings by its own rules and the times into Dates): text stays octets, times stay
 * text. A body the codec cannot read leaves the header, marked unreadable.
 */
function readRaw(raw: Buffer): PDU {
  try {
    return undecoded(raw);
  } catch {
    const header = Buffer.from(raw.subarray(0, HEADER_OCTETS));
    header.writeUInt32BE(HEADER_OCTETS, 0);
    return Object.assign(undecoded(header), { unreadable: true });
  }
}

/** The codec's reading of the octets with its decode filters turned off for this one PDU. */
function undecoded(raw: Buffer): PDU {
  const pdu = Object.create(smpp.PDU.prototype) as PDU & { _filter?: (direction: string) => void };
  pdu._filter = () => undefined;
  pdu.fromBuffer(raw);
  delete pdu._filter;
  return pdu;
}
