// What a simulated phone does with MMS over HTTP, with its device credentials: fetching the parts
// of an MMS task before it "sends" it (whole, or in two Range requests as a phone resuming a
// download does), and uploading the parts of an MMS it received. Bytes are hashed as they
// arrive and never kept: fifty phones fetching at once hold no copies.
import { createHash } from 'node:crypto';
import type { MmsPart, OutgoingSmsMms } from './mms-types.ts';

export interface FetchedPart {
  id: string;
  size: number;
  sha256: string;
  /** HTTP statuses of the requests it took (200, or 206 per range). */
  statuses: number[];
}

export interface DeviceHttp {
  apiUrl: string;
  deviceId: string;
  token: string;
}

export function basicAuth(http: DeviceHttp): string {
  return `Basic ${Buffer.from(`${http.deviceId}:${http.token}`).toString('base64')}`;
}

/** Fetches every part of an MMS; rejects (the send fails) on any answer but the bytes announced. */
export async function fetchParts(http: DeviceHttp, mms: OutgoingSmsMms, ranges: boolean): Promise<FetchedPart[]> {
  const fetched: FetchedPart[] = [];
  for (const part of mms.parts) fetched.push(await fetchPart(http, part, ranges));
  return fetched;
}

async function fetchPart(http: DeviceHttp, part: MmsPart, ranges: boolean): Promise<FetchedPart> {
  const hash = createHash('sha256');
  const statuses: number[] = [];
  let size = 0;
  const half = Math.floor(part.size / 2);
  const requests = ranges && half > 0 ? [`bytes=0-${half - 1}`, `bytes=${half}-`] : [undefined];
  for (const range of requests) {
    const response = await fetch(new URL(part.path, http.apiUrl), { headers: { authorization: basicAuth(http), ...(range ? { range } : {}) } });
    statuses.push(response.status);
    if (response.status !== (range ? 206 : 200) || !response.body) {
      await response.arrayBuffer().catch(() => undefined);
      throw new Error(`part ${part.id}: HTTP ${response.status}`);
    }
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      hash.update(chunk);
      size += chunk.length;
    }
  }
  if (size !== part.size) throw new Error(`part ${part.id}: ${size} bytes, the task said ${part.size}`);
  return { id: part.id, size, sha256: hash.digest('hex'), statuses };
}

/** Uploads one part of a received MMS; answers the HTTP status and the gateway's answer. */
export async function uploadPart(http: DeviceHttp, mmsId: string, partId: string, bytes: Buffer): Promise<{ status: number; body: unknown }> {
  const response = await fetch(new URL(`/api/device/v1/mms/${encodeURIComponent(mmsId)}/parts/${encodeURIComponent(partId)}`, http.apiUrl), {
    method: 'PUT',
    headers: { authorization: basicAuth(http), 'content-type': 'application/octet-stream' },
    body: bytes,
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: kept as text
  }
  return { status: response.status, body };
}
