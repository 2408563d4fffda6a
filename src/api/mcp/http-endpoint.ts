// The MCP endpoint on the gateway itself (streamable HTTP, stateless): an assistant that speaks
// HTTP posts its JSON-RPC here with "Authorization: Bearer <API key>". Every request gets a fresh
// server whose tools call this gateway's Extended API with that same key, over the very socket
// address the request arrived on, so the tools pass the same authentication, permission checks,
// limits and validation as any other client of the API.
import type Router from '@koa/router';
import type { Context } from 'koa';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { Agent, fetch as undiciFetch } from 'undici';
import { AppError } from '../../common/errors.ts';
import { authenticateRequest, type Authenticator } from '../../http/middleware/authenticate.ts';
import { createBodyReader } from '../../http/middleware/json-body.ts';
import { GatewayApiClient } from './gateway-client.ts';
import { createMcpServer } from './tools.ts';
import { refusedRequest } from './refused-requests.ts';

export const MCP_PATH = '/api/ext/v1/mcp';

// A TLS gateway's own certificate names its public host, not the local address the tools call
// back to; that address is this very server's listening socket, so there is nothing to verify.
const toOwnTlsSocket = new Agent({ connect: { rejectUnauthorized: false } });
const fetchOwnTls = ((input: any, init?: any) => undiciFetch(input, { ...init, dispatcher: toOwnTlsSocket })) as unknown as typeof fetch;

export function mountMcpEndpoint(router: Router, authenticator: Authenticator, bodyLimitBytes: number): void {
  const readBody = createBodyReader(bodyLimitBytes);
  router.post(MCP_PATH, async (ctx) => {
    const key = bearerKey(ctx);
    // Unknown, revoked or throttled keys and disabled accounts are answered as on every API route.
    await authenticateRequest(ctx, authenticator);
    // Read here, within BODY_LIMIT, as every API body is (the SDK itself would read without a limit).
    const body = await readBody(ctx);
    const refused = refusedRequest(body);
    if (refused) {
      // A batch is refused whole: it is answered at once, none of it is run.
      ctx.status = Array.isArray(body) ? 400 : 200;
      ctx.body = refused;
      return;
    }
    const own = ownAddress(ctx);
    const server = createMcpServer(new GatewayApiClient(own.url, key, own.encrypted ? fetchOwnTls : fetch));
    // Stateless: no session id, one request and its answer, then both are closed.
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    ctx.res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    ctx.respond = false;
    await transport.handleRequest(ctx.req, ctx.res, body);
  });
}

/** The key the tools act with: only a Bearer API key (a panel session has no key to pass on). */
function bearerKey(ctx: Context): string {
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(ctx.get('authorization'));
  if (!match) {
    ctx.set('WWW-Authenticate', 'Bearer realm="sms-gateway"');
    throw new AppError('unauthorized', 'the MCP endpoint needs an API key: Authorization: Bearer <API key>');
  }
  return match[1]!;
}

/** This gateway as reached through the socket the request came in on. */
function ownAddress(ctx: Context): { url: string; encrypted: boolean } {
  const socket = ctx.req.socket;
  const address = (socket.localAddress ?? '127.0.0.1').replace(/^::ffff:/, '');
  const host = address.includes(':') ? `[${address}]` : address;
  const encrypted = (socket as { encrypted?: boolean }).encrypted === true;
  return { url: `${encrypted ? 'https' : 'http'}://${host}:${socket.localPort}`, encrypted };
}
