// The MCP server's only way into the gateway: the Extended API over HTTP, with one API key. Being
// a client of the API (not of the services) is what bounds every tool by the key's permissions.

/** An answer of the Extended API other than 2xx: its status and the catalog's code and message. */
export class GatewayApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'GatewayApiError';
  }
}

export type Query = Record<string, string | number | boolean | undefined>;

export class GatewayApiClient {
  private readonly base: string;

  /** `baseUrl`: the gateway's root (http://host:port), with or without a trailing slash. */
  constructor(
    baseUrl: string,
    private readonly key: string,
    private readonly fetchImpl: typeof fetch = fetch,
  ) {
    this.base = `${baseUrl.replace(/\/+$/, '')}/api/ext/v1`;
  }

  get<T>(path: string, query: Query = {}): Promise<T> {
    return this.request<T>('GET', path, query);
  }

  post<T>(path: string, body?: unknown): Promise<T> {
    return this.request<T>('POST', path, {}, body);
  }

  private async request<T>(method: string, path: string, query: Query, body?: unknown): Promise<T> {
    const url = new URL(this.base + path);
    for (const [name, value] of Object.entries(query)) if (value !== undefined) url.searchParams.set(name, String(value));
    let response: Response;
    try {
      response = await this.fetchImpl(url, {
        method,
        headers: { authorization: `Bearer ${this.key}`, accept: 'application/json', ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        signal: AbortSignal.timeout(30_000),
      });
    } catch (error) {
      throw new GatewayApiError(0, 'unreachable', `the gateway at ${url.origin} could not be reached: ${(error as Error).message}`);
    }
    const text = await response.text();
    let parsed: any;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    if (!response.ok) {
      const error = parsed?.error ?? {};
      const message = String(error.message ?? `HTTP ${response.status}`);
      const details = detailsBeyond(message, Array.isArray(error.details) ? error.details : []);
      throw new GatewayApiError(response.status, String(error.code ?? `http_${response.status}`), details.length > 0 ? `${message} (${details.join('; ')})` : message);
    }
    return parsed as T;
  }
}

/**
 * The details of a refusal that say more than its message: a refusal of one field often carries
 * that field's problem as its message too, and a reader should not be told it twice. Each names
 * its field, unless its words begin with it already.
 */
function detailsBeyond(message: string, details: { field?: unknown; message?: unknown }[]): string[] {
  const said = new Set([message]);
  const beyond: string[] = [];
  for (const detail of details) {
    const field = typeof detail?.field === 'string' ? detail.field : '';
    const text = typeof detail?.message === 'string' ? detail.message : '';
    const told = !text ? field : !field || text.startsWith(field) ? text : `${field}: ${text}`;
    if (!told || said.has(text) || said.has(told)) continue;
    said.add(told);
    beyond.push(told);
  }
  return beyond;
}
