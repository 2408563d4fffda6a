// The parts of the smpp package (farhadi/node-smpp, the PDU codec) the gateway uses; it ships no types.
declare module 'smpp' {
  import type { EventEmitter } from 'node:events';
  import type { Server as NetServer, Socket } from 'node:net';

  export interface PDU {
    command: string;
    command_id: number;
    command_status: number;
    sequence_number: number;
    data_coding?: number | null;
    short_message?: unknown;
    message_payload?: unknown;
    sar_msg_ref_num?: number;
    sar_total_segments?: number;
    sar_segment_seqnum?: number;
    isResponse(): boolean;
    response(options?: Record<string, unknown>): PDU;
    /** The PDU's octets, its fields encoded. */
    toBuffer(): Buffer;
    /** Reads a whole PDU's octets into this one (what `new PDU(buffer)` does). */
    fromBuffer(buffer: Buffer): void;
    [field: string]: any;
  }

  export const PDU: {
    /** A command name with its fields, or the bytes of a whole PDU to read. */
    new (command: string | Buffer, options?: Record<string, unknown>): PDU;
    prototype: PDU;
    maxLength: number;
  };

  export interface Session extends EventEmitter {
    socket: Socket;
    send(pdu: PDU, responseCallback?: (response: PDU) => void): boolean;
    close(callback?: () => void): void;
    destroy(callback?: () => void): void;
    [command: string]: any;
  }

  export interface Server extends NetServer {
    sessions: Session[];
  }

  export function createServer(options: { key?: Buffer; cert?: Buffer }, listener: (session: Session) => void): Server;
  export function connect(url: string | Record<string, unknown>, listener?: () => void): Session;
  const smpp: { createServer: typeof createServer; connect: typeof connect; PDU: typeof PDU };
  export default smpp;
}

// The codec's GSM 03.38 tables (national language shift tables included), and its tables of
// commands, field types and TLVs, by which a PDU's lengths are checked before it is read
// (pdu-layout.ts).
declare module 'smpp/lib/defs.js' {
  interface FieldType {
    read(buffer: Buffer, offset: number, length?: number): unknown;
    size(value: unknown): number;
  }
  const defs: {
    /** GSM 03.38 one septet an octet; `language`: a national language shift table (0: none). */
    gsmCoder: { decode(octets: Buffer, language: number): string };
    commands: Record<string, { id: number; params?: Record<string, { type: FieldType }> }>;
    commandsById: Record<number, { command: string } | undefined>;
    types: {
      int8: FieldType;
      cstring: FieldType;
      buffer: FieldType;
      dest_address_array: FieldType;
      unsuccess_sme_array: FieldType;
      tlv: { int8: FieldType; int16: FieldType; int32: FieldType };
    };
    tlvsById: Record<number, { tag: string; type: FieldType } | undefined>;
  };
  export default defs;
}
