// What the recording tests share: a gateway whose recordings go to a fresh directory, phones
// that report calls over MQTT (QoS 2: the call is stored when the publish resolves) and upload
// over HTTP with their device credentials, and a look at the files on disk.
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { readdir, rm } from 'node:fs/promises';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, type Config } from '../../src/config.ts';
import type { GatewayFixture } from '../support/use-gateway.ts';
import { topic, type RawClient } from '../support/mqtt.ts';
import { registerDevice, type Tenant } from '../support/tenant.ts';

/** Config for useGateway: recordings in a directory of their own (removed after the describe). */
export function recordingConfig(fx: () => GatewayFixture, overrides: Partial<Config['recordings']> = {}, more: Partial<Config> = {}): () => Partial<Config> {
  return () => {
    const directory = mkdtempSync(join(tmpdir(), 'recordings-'));
    fx().onCleanup(() => rm(directory, { recursive: true, force: true }));
    return { ...more, recordings: { ...loadConfig({}).recordings, directory, ...overrides } };
  };
}

export interface UploadReply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any;
}

export class RecordingPhone {
  constructor(
    readonly fx: GatewayFixture,
    readonly id: string,
    readonly token: string,
    readonly mqtt: RawClient,
    readonly tenant: Tenant,
  ) {}

  /** A registered, connected phone; record_calls on unless told otherwise (through PATCH settings). */
  static async connect(fx: GatewayFixture, options: { recordCalls?: boolean; tenant?: Tenant } = {}): Promise<RecordingPhone> {
    const tenant = options.tenant ?? fx.tenant;
    const { device, token } = await registerDevice(fx.gateway, tenant);
    const phone = new RecordingPhone(fx, device.id, token, await fx.clients.device(device.id, token), tenant);
    if (options.recordCalls ?? true) await phone.setRecordCalls(true);
    return phone;
  }

  async setRecordCalls(on: boolean): Promise<void> {
    const reply = await this.tenant.api.patch(`/devices/${this.id}/settings`, { record_calls: on });
    if (reply.status !== 200) throw new Error(`PATCH settings answered ${reply.status}`);
  }

  /** Reports a call on the calls topic; resolves once the gateway stored it. Answers the phone's call id. */
  async reportCall(): Promise<string> {
    const id = randomUUID();
    const call = { id, direction: 'incoming', phone: '+79005550101', started_at: new Date().toISOString(), duration_seconds: 12, sim_slot: 0 };
    await this.mqtt.publish(topic(this.id, 'calls'), JSON.stringify(call), { qos: 2 });
    return id;
  }

  get authorization(): string {
    return `Basic ${Buffer.from(`${this.id}:${this.token}`).toString('base64')}`;
  }

  /** PUT the body (bytes, or chunks streamed as they come, without a Content-Length). */
  upload(callId: string, body: Buffer | AsyncIterable<Buffer>, headers: Record<string, string> = {}): Promise<UploadReply> {
    return put(this.fx.baseUrl, callId, body, { authorization: this.authorization, 'content-type': 'audio/wav', ...headers });
  }
}

/** A raw PUT to the upload endpoint; a refusal that closes the connection mid-body still yields its answer. */
export function put(
  baseUrl: string,
  callId: string,
  body: Buffer | AsyncIterable<Buffer>,
  headers: Record<string, string>,
  /** Another endpoint taking a raw body (MMS media). */
  target: { method: string; path: string } = { method: 'PUT', path: `/api/device/v1/calls/${encodeURIComponent(callId)}/recording` },
): Promise<UploadReply> {
  return new Promise((resolve, reject) => {
    const url = new URL(target.path, baseUrl);
    const request = httpRequest(url, {
      method: target.method,
      headers: Buffer.isBuffer(body) && !('content-length' in headers) ? { ...headers, 'content-length': String(body.length) } : headers,
    });
    let answered = false;
    request.on('response', (response: IncomingMessage) => {
      answered = true;
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: response.statusCode!, headers: response.headers, body: text ? JSON.parse(text) : undefined });
      });
      response.on('error', reject);
    });
    // Writing into a connection the gateway closed after answering fails: the answer is what counts.
    request.on('error', (error) => {
      if (!answered) reject(error);
    });
    if (Buffer.isBuffer(body)) {
      request.end(body);
      return;
    }
    void (async () => {
      for await (const chunk of body) {
        if (answered || request.destroyed) return;
        if (!request.write(chunk)) {
          await new Promise<void>((go) => {
            const done = () => {
              request.off('drain', done).off('close', done);
              go();
            };
            request.on('drain', done).on('close', done);
          });
        }
      }
      request.end();
    })().catch(() => undefined);
  });
}

/** `total` bytes of a WAV, made chunk by chunk as they are sent (never held whole). */
export async function* streamedWav(total: number, chunkBytes = 64 * 1024): AsyncGenerator<Buffer> {
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'latin1');
  header.write('WAVEfmt ', 8, 'latin1');
  yield header;
  const chunk = Buffer.alloc(chunkBytes, 1);
  for (let sent = header.length; sent < total; sent += chunkBytes) yield chunk;
}

/** The recording files in the store's directory, partial uploads apart. */
export async function storedFiles(directory: string): Promise<string[]> {
  const entries = await readdir(directory, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((entry) => entry.isFile() && !entry.parentPath.includes('.partial')).map((entry) => join(entry.parentPath, entry.name));
}

export async function partialFiles(directory: string): Promise<string[]> {
  return readdir(join(directory, '.partial')).catch(() => []);
}
