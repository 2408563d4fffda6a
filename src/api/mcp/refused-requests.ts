// The MCP SDK checks a request's params only as it dispatches the request, and answers params of
// the wrong shape (tools/call whose name is a number, arguments that are not an object) with
// -32603 "Internal error", as if the server had failed. Requests are checked here first, with the
// SDK's own schemas, so that such params are answered as JSON-RPC names bad input: -32602
// "Invalid params". Methods the SDK does not know are left to it (-32601). An empty batch, which
// the SDK takes as notifications only and answers with nothing (202), is -32600 Invalid Request,
// as JSON-RPC answers it.
import { ClientRequestSchema, ErrorCode } from '@modelcontextprotocol/sdk/types.js';

const REQUEST_SCHEMAS = new Map(ClientRequestSchema.options.map((schema) => [(schema.shape.method as unknown as { value: string }).value, schema]));

export interface RefusedRequest {
  jsonrpc: '2.0';
  id: string | number | null;
  error: { code: number; message: string };
}

/** The answer to an empty batch or to the first request whose params are not of its method's shape; undefined for the SDK to answer. */
export function refusedRequest(body: unknown): RefusedRequest | undefined {
  if (Array.isArray(body) && body.length === 0) {
    return { jsonrpc: '2.0', id: null, error: { code: ErrorCode.InvalidRequest, message: 'Invalid Request: an empty batch holds no request' } };
  }
  for (const message of Array.isArray(body) ? body : [body]) {
    if (typeof message !== 'object' || message === null || !('id' in message) || !('method' in message)) continue;
    const { id, method } = message as { id: unknown; method: unknown };
    const schema = typeof method === 'string' ? REQUEST_SCHEMAS.get(method) : undefined;
    const parsed = schema?.safeParse(message);
    if (!parsed || parsed.success) continue;
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.') || 'params'}: ${issue.message}`);
    return {
      jsonrpc: '2.0',
      id: typeof id === 'string' || typeof id === 'number' ? id : null,
      error: { code: ErrorCode.InvalidParams, message: `Invalid params for ${String(method)}: ${problems.join('; ')}` },
    };
  }
  return undefined;
}
