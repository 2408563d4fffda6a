// Bounds the MQTT packets a connection may send, read from each packet's fixed header before
// the broker buffers the packet.
//
// Aedes' parser (mqtt-packet) reads a packet's "remaining length" from its fixed header and then
// buffers that many bytes, whatever they are: three unauthenticated connections announcing a
// 250 MiB CONNECT made the gateway hold hundreds of megabytes. Here the header is decoded as the
// bytes arrive, and a connection announcing a packet over its limit is closed before any of the
// packet's body is kept. Until the connection has authenticated the limit is small (a CONNECT
// carries a client id, a username, a password and a last will: well under a kilobyte for a
// device or an operator); after, it is MQTT_MAX_PACKET, sized for the largest device message.
import type { Duplex } from 'node:stream';

/** Largest packet before authentication: many times a real CONNECT, tiny for the gateway. */
export const MAX_PACKET_BEFORE_AUTH_BYTES = 4 * 1024;

export type PacketRefusal = 'packet_too_large' | 'malformed_length';

/** Follows the packet boundaries of one connection's byte stream. */
export class PacketSizeGuard {
  private limit: number;
  /** Where in a packet the next byte falls. */
  private state: 'type' | 'length' | 'body' = 'type';
  private length = 0;
  private lengthBytes = 0;
  private multiplier = 1;
  /** Body bytes of the current packet still to come. */
  private remaining = 0;
  /** Told once, when the connection's first packet (its CONNECT) has arrived whole. */
  private onFirstPacket: (() => void) | undefined;

  constructor(private readonly maxPacketBytes: number) {
    this.limit = Math.min(MAX_PACKET_BEFORE_AUTH_BYTES, maxPacketBytes);
  }

  /** Calls `callback` once, when the next packet has arrived whole: set before any byte, the CONNECT. */
  whenFirstPacketArrives(callback: () => void): void {
    this.onFirstPacket = callback;
  }

  /** The connection authenticated: packets whose header comes from now on may be MQTT_MAX_PACKET. */
  authenticated(): void {
    this.limit = this.maxPacketBytes;
  }

  /** Reads the headers in the chunk; the reason to close the connection, or undefined when all is well. */
  inspect(chunk: Uint8Array): PacketRefusal | undefined {
    let i = 0;
    while (i < chunk.length) {
      if (this.state === 'body') {
        const skip = Math.min(this.remaining, chunk.length - i);
        i += skip;
        this.remaining -= skip;
        if (this.remaining === 0) this.packetEnded();
        continue;
      }
      if (this.state === 'type') {
        i++;
        this.state = 'length';
        this.length = 0;
        this.lengthBytes = 0;
        this.multiplier = 1;
        continue;
      }
      // Remaining length: 7 bits a byte, least significant first, at most 4 bytes (MQTT 2.2.3).
      const byte = chunk[i++]!;
      this.length += (byte & 0x7f) * this.multiplier;
      this.multiplier *= 128;
      this.lengthBytes++;
      // Decided as soon as the bytes so far announce too much: later bytes only add to it.
      if (1 + this.lengthBytes + this.length > this.limit) return 'packet_too_large';
      if (byte & 0x80) {
        if (this.lengthBytes === 4) return 'malformed_length';
        continue;
      }
      this.remaining = this.length;
      if (this.remaining > 0) this.state = 'body';
      else this.packetEnded();
    }
    return undefined;
  }

  private packetEnded(): void {
    this.state = 'type';
    const first = this.onFirstPacket;
    this.onFirstPacket = undefined;
    first?.();
  }
}

/**
 * Shows the guard every chunk the broker reads from the connection, before the broker's parser
 * gets it; a refused chunk is never handed on, and the connection is destroyed with the reason.
 *
 * Aedes reads its connection in paused mode (`read()` on 'readable'), so the tap sits on read():
 * it adds no stream and no copy to a connection's hot path, and covers the TCP socket and the
 * WebSocket stream alike. test/device-channel/packet-limits.test.ts fails should Aedes ever
 * read another way.
 */
export function guardIncoming(connection: Duplex, guard: PacketSizeGuard, refused: (reason: PacketRefusal) => void): void {
  const read = connection.read.bind(connection);
  connection.read = (size?: number) => {
    const received: unknown = read(size);
    if (received === null || received === undefined) return received;
    // A WebSocket text frame may surface as a string: the parser takes its bytes, so does the guard.
    const chunk = typeof received === 'string' ? Buffer.from(received) : (received as Uint8Array);
    const refusal = guard.inspect(chunk);
    if (!refusal) return chunk;
    refused(refusal);
    connection.destroy();
    return null;
  };
}
