// A tenant for a test: its own account and API key, and a small HTTP client that uses the key.
// Each test makes its own tenant, so tests never see each other's rows.
import { randomBytes } from 'node:crypto';
import type { Gateway } from '../../src/gateway.ts';
import { PERMISSIONS, type Permission } from '../../src/modules/api-keys/permissions.ts';

export interface Reply<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export class ApiClient {
  constructor(
    readonly baseUrl: string,
    readonly key: string | undefined,
  ) {}

  get<T = any>(path: string): Promise<Reply<T>> {
    return this.request('GET', path);
  }
  post<T = any>(path: string, body?: unknown): Promise<Reply<T>> {
    return this.request('POST', path, body);
  }
  patch<T = any>(path: string, body?: unknown): Promise<Reply<T>> {
    return this.request('PATCH', path, body);
  }
  delete<T = any>(path: string, body?: unknown): Promise<Reply<T>> {
    return this.request('DELETE', path, body);
  }

  /** Sends `body` as JSON, or as it is when it is a string (for malformed-input tests). */
  async request<T = any>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply<T>> {
    const response = await fetch(this.baseUrl + path, {
      method,
      headers: {
        ...(this.key ? { authorization: `Bearer ${this.key}` } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON: keep the text
    }
    return { status: response.status, headers: response.headers, body: parsed as T };
  }
}

export interface Tenant {
  accountId: string;
  accountName: string;
  key: string;
  /** Client on the Extended API (/api/ext/v1). */
  api: ApiClient;
  /** Client on the server root (legacy paths, health). */
  root: ApiClient;
}

export async function createTenant(gateway: Gateway, permissions: readonly Permission[] = PERMISSIONS): Promise<Tenant> {
  const { accounts, apiKeys } = gateway.services;
  const account = await accounts.create(`t-${randomBytes(6).toString('hex')}`);
  const { key } = await apiKeys.create(account.id, [...permissions]);
  const root = `http://127.0.0.1:${gateway.httpPort}`;
  return { accountId: account.id, accountName: account.name, key, api: new ApiClient(`${root}/api/ext/v1`, key), root: new ApiClient(root, key) };
}

/** Another key for an existing tenant, with other permissions. */
export async function keyWith(gateway: Gateway, tenant: Tenant, permissions: Permission[]): Promise<ApiClient> {
  const { key } = await gateway.services.apiKeys.create(tenant.accountId, permissions);
  return new ApiClient(tenant.api.baseUrl, key);
}

export async function registerDevice(gateway: Gateway, tenant: Tenant, name = 'test-phone') {
  return gateway.services.devices.register(tenant.accountId, name);
}
