// What the MMS tests share: a gateway whose media go to a fresh directory, media samples whose
// first bytes are what their type says, and raw HTTP uploads that still hear a refusal when the
// gateway closes the connection mid-body.
import { createHash } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, type Config } from '../../src/config.ts';
import type { GatewayFixture } from '../support/use-gateway.ts';
import { put, type UploadReply } from '../calls/recording-fixture.ts';

export type { UploadReply };

/** Config for useGateway: media in a directory of their own (removed after the describe). */
export function mmsConfig(fx: () => GatewayFixture, overrides: Partial<Config['mms']> = {}, more: Partial<Config> = {}): () => Partial<Config> {
  return () => {
    const directory = mkdtempSync(join(tmpdir(), 'media-'));
    fx().onCleanup(() => rm(directory, { recursive: true, force: true }));
    return { ...more, mms: { ...loadConfig({}).mms, directory, ...overrides } };
  };
}

/** A JPEG of `size` bytes: its signature, then filler that differs per `seed`. */
export function jpeg(size: number, seed = 7): Buffer {
  const head = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10]), Buffer.from('JFIF\0')]);
  const body = Buffer.alloc(Math.max(0, size - head.length));
  for (let i = 0; i < body.length; i++) body[i] = (i * 31 + seed) & 0xff;
  return Buffer.concat([head, body]).subarray(0, size);
}

export function png(size: number): Buffer {
  const head = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489', 'hex');
  return Buffer.concat([head, Buffer.alloc(Math.max(0, size - head.length), 3)]);
}

export const VCARD = Buffer.from('BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Ada Lovelace\r\nTEL:+441234567890\r\nEND:VCARD\r\n');

export const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** POST /api/ext/v1/media with the raw bytes (or chunks streamed without a Content-Length). */
export function uploadMedia(fx: GatewayFixture, key: string, body: Buffer | AsyncIterable<Buffer>, contentType: string, headers: Record<string, string> = {}): Promise<UploadReply> {
  return put(fx.baseUrl, '', body, { authorization: `Bearer ${key}`, 'content-type': contentType, ...headers }, { method: 'POST', path: '/api/ext/v1/media' });
}

/** GET with a key or device credentials; answers the status, headers and bytes. */
export async function download(url: string, authorization: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; bytes: Buffer }> {
  const response = await fetch(url, { headers: { authorization, ...headers } });
  return { status: response.status, headers: response.headers, bytes: Buffer.from(await response.arrayBuffer()) };
}

export function basic(deviceId: string, token: string): string {
  return `Basic ${Buffer.from(`${deviceId}:${token}`).toString('base64')}`;
}
