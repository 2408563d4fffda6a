// HTTP requests from a chosen local address (127.0.0.x are all this machine), each on its own
// connection: tests of limits counted per client address pick the address a request comes from.
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import type { Gateway } from '../../src/gateway.ts';

export interface RawAnswer {
  status: number;
  retryAfter: string | undefined;
  code: string | undefined;
  body: any;
}

export interface RawRequest {
  method?: string;
  path: string;
  headers?: Record<string, string>;
  body?: unknown;
  /** The local address the request comes from; 127.0.0.1 when absent. */
  from?: string;
}

export function send(gateway: Gateway, options: RawRequest): Promise<RawAnswer> {
  const body = options.body === undefined ? undefined : JSON.stringify(options.body);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: gateway.httpPort,
        method: options.method ?? 'GET',
        path: options.path,
        localAddress: options.from ?? '127.0.0.1',
        headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...options.headers },
        agent: false,
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => {
          let parsed: any = text;
          try {
            parsed = text ? JSON.parse(text) : undefined;
          } catch {
            // not JSON: kept as text
          }
          resolve({ status: res.statusCode!, retryAfter: res.headers['retry-after'], code: parsed?.error?.code, body: parsed });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** GET /api/ext/v1/devices with this key (none: no Authorization header). */
export function listDevices(gateway: Gateway, key: string | undefined, from = '127.0.0.1'): Promise<RawAnswer> {
  return send(gateway, { path: '/api/ext/v1/devices', headers: key ? { authorization: `Bearer ${key}` } : {}, from });
}

/** POST /api/ext/v1/session. */
export function logIn(gateway: Gateway, email: string, password: string, from = '127.0.0.1'): Promise<RawAnswer> {
  return send(gateway, { method: 'POST', path: '/api/ext/v1/session', body: { email, password }, from });
}

/** A raw TCP connection to the gateway's HTTP port; resolves once connected. */
export function openSocket(gateway: Gateway, from = '127.0.0.1'): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port: gateway.httpPort, localAddress: from }, () => {
      socket.off('error', reject);
      socket.on('error', () => {});
      resolve(socket);
    });
    socket.once('error', reject);
  });
}

/** What the server wrote on a socket until it closed it; rejects if it is still open after `withinMs`. */
export function untilClosed(socket: Socket, withinMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (text += chunk));
    if (socket.destroyed) return resolve(text);
    const timer = setTimeout(() => reject(new Error(`the connection was still open after ${withinMs} ms`)), withinMs);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve(text);
    });
  });
}
