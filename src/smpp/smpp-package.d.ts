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
    [field: string]: any;
  }

  export const PDU: {
    new (command: string, options?: Record<string, unknown>): PDU;
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

// The codec's own reading of a message body in a data_coding, for PDUs that carry none (replace_sm).
declare module 'smpp/lib/defs.js' {
  const defs: {
    filters: {
      message: { decode(this: { data_coding: number; esm_class: number }, value: Buffer, skipUdh?: boolean): { message: string | Buffer; udh?: Buffer[] } };
    };
  };
  export default defs;
}
