// What the Twilio tests share: a credential made through the Extended API, the official twilio
// client pointed at the gateway (exactly as the README shows it), and raw form-encoded requests.
import twilio from 'twilio';
import { expect } from 'chai';
import type { Tenant } from '../support/tenant.ts';

export interface Credential {
  account_sid: string;
  auth_token: string;
  sms_url: string | null;
}

export async function createCredential(tenant: Tenant, body: Record<string, unknown> = {}): Promise<Credential> {
  const reply = await tenant.api.post('/twilio/credentials', body);
  expect(reply.status, JSON.stringify(reply.body)).to.equal(201);
  return reply.body as Credential;
}

/** The official helper library, talking to the gateway instead of api.twilio.com. */
export function twilioClient(gatewayUrl: string, credential: Credential) {
  const client = twilio(credential.account_sid, credential.auth_token);
  client.api.baseUrl = gatewayUrl;
  return client;
}

/** A form-encoded request with HTTP Basic, as any Twilio client sends it. */
export async function twilioRequest(
  gatewayUrl: string,
  method: string,
  path: string,
  auth: { sid: string; token: string } | undefined,
  params?: Record<string, string>,
): Promise<{ status: number; body: any; headers: Headers }> {
  const headers: Record<string, string> = {};
  if (auth) headers.authorization = `Basic ${Buffer.from(`${auth.sid}:${auth.token}`).toString('base64')}`;
  if (params) headers['content-type'] = 'application/x-www-form-urlencoded';
  const response = await fetch(gatewayUrl + path, { method, headers, ...(params ? { body: new URLSearchParams(params).toString() } : {}) });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: kept as text
  }
  return { status: response.status, body, headers: response.headers };
}

export function messagesPath(sid: string): string {
  return `/2010-04-01/Accounts/${sid}/Messages`;
}
