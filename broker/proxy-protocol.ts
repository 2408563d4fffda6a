// The PROXY protocol (versions 1 and 2, as HAProxy's send-proxy / send-proxy-v2 write it): a
// load balancer passing MQTT over TCP through states, before the first MQTT byte, which client
// the connection is for. Read only from trusted proxies (TRUSTED_PROXIES): from anyone else the
// same bytes would be a forged address. Specification: haproxy.org/download/2.9/doc/proxy-protocol.txt
import type { Socket } from 'node:net';

const V2_SIGNATURE = Buffer.from([0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0x0d, 0x0a, 0x51, 0x55, 0x49, 0x54, 0x0a]);
const V1_PREFIX = Buffer.from('PROXY ');
/** A version 1 line is at most 107 bytes; a version 2 header here at most this (addresses plus TLVs). */
const V1_MAX = 107;
const V2_MAX = 16 + 1024;

export interface ProxyHeader {
  /** The client's address; undefined for a health check (LOCAL, UNKNOWN) or a family without one. */
  address: string | undefined;
  /** Bytes read past the header: the start of the MQTT stream. */
  rest: Buffer;
}

/** Reads the header off the socket; rejects on a connection that does not start with a valid one. */
export function readProxyHeader(socket: Socket, timeoutMs: number): Promise<ProxyHeader> {
  return new Promise((resolve, reject) => {
    let buffered = Buffer.alloc(0);
    const finish = (error: Error | undefined, header?: ProxyHeader) => {
      clearTimeout(timer);
      socket.off('data', onData);
      socket.off('close', onClose);
      socket.off('error', onError);
      socket.pause();
      if (error) reject(error);
      else resolve(header!);
    };
    const onData = (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      try {
        const header = parseProxyHeader(buffered);
        if (header) finish(undefined, header);
      } catch (error) {
        finish(error as Error);
      }
    };
    const onClose = () => finish(new Error('closed before the PROXY header'));
    // Nothing else listens yet: an unheard socket error (a reset) would end the process.
    const onError = (error: Error) => finish(error);
    const timer = setTimeout(() => finish(new Error('no PROXY header in time')), timeoutMs);
    timer.unref();
    socket.on('data', onData);
    socket.once('close', onClose);
    socket.on('error', onError);
  });
}

/** The header at the start of `bytes`; undefined while more bytes are needed; throws when there is none. */
export function parseProxyHeader(bytes: Buffer): ProxyHeader | undefined {
  if (startsLike(bytes, V2_SIGNATURE)) return bytes.length >= V2_SIGNATURE.length ? parseV2(bytes) : undefined;
  if (startsLike(bytes, V1_PREFIX)) return parseV1(bytes);
  throw new Error('the connection does not start with a PROXY header');
}

function parseV1(bytes: Buffer): ProxyHeader | undefined {
  const end = bytes.indexOf('\r\n');
  if (end < 0) {
    if (bytes.length >= V1_MAX) throw new Error('PROXY v1 line too long');
    return undefined;
  }
  const [, family, source] = bytes.subarray(0, end).toString('latin1').split(' ');
  const rest = bytes.subarray(end + 2);
  if (family === 'UNKNOWN') return { address: undefined, rest };
  if ((family !== 'TCP4' && family !== 'TCP6') || !source) throw new Error('malformed PROXY v1 line');
  return { address: source, rest };
}

function parseV2(bytes: Buffer): ProxyHeader | undefined {
  if (bytes.length < 16) return undefined;
  const versionCommand = bytes[12]!;
  if (versionCommand >> 4 !== 2) throw new Error('unknown PROXY protocol version');
  const length = bytes.readUInt16BE(14);
  if (16 + length > V2_MAX) throw new Error('PROXY v2 header too long');
  if (bytes.length < 16 + length) return undefined;
  const rest = bytes.subarray(16 + length);
  // LOCAL: the proxy's own connection (a health check), not a client's.
  if ((versionCommand & 0x0f) === 0) return { address: undefined, rest };
  const family = bytes[13]! >> 4;
  if (family === 1 && length >= 12) return { address: [...bytes.subarray(16, 20)].join('.'), rest };
  if (family === 2 && length >= 36) {
    const parts: string[] = [];
    for (let i = 0; i < 16; i += 2) parts.push(bytes.readUInt16BE(16 + i).toString(16));
    return { address: parts.join(':'), rest };
  }
  return { address: undefined, rest };
}

function startsLike(bytes: Buffer, prefix: Buffer): boolean {
  const n = Math.min(bytes.length, prefix.length);
  return bytes.subarray(0, n).equals(prefix.subarray(0, n));
}
