// /metrics, served only to whom the operator chose. The page shows every tenant's traffic, the
// fleet's size and the process's state, so it is never open to whoever reaches the API port:
// METRICS_TOKEN asks a scrape for `Authorization: Bearer <token>` (compared in constant time);
// METRICS_PORT serves it on a listener of its own, which a firewall or a NetworkPolicy keeps to
// the scrapers, and no longer on the API port. Neither: it is not served at all.
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type Router from '@koa/router';
import type { MetricsConfig } from '../config.ts';
import type { Logger } from '../common/logger.ts';
import type { Metrics } from '../common/metrics.ts';
import { listen } from '../common/listen.ts';

export const METRICS_PATH = '/metrics';

/** Scrapers are few: the metrics listener holds this many connections, and refuses the rest. */
const MAX_SCRAPER_CONNECTIONS = 32;

/** Whether an Authorization header carries `token` as a bearer token; in constant time whatever it carries. */
export function carriesToken(authorization: string | undefined, token: string): boolean {
  const given = /^Bearer +(\S+) *$/i.exec(authorization ?? '')?.[1] ?? '';
  // Digests have one length, so that the comparison takes as long whatever length was sent.
  const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();
  return timingSafeEqual(digest(given), digest(token)) && given.length > 0;
}

export class MetricsEndpoint {
  private server: Server | undefined;

  constructor(
    private readonly settings: MetricsConfig,
    private readonly metrics: Metrics,
    private readonly logger: Logger,
  ) {}

  /** Serves /metrics on the API's router when it has no listener of its own and a token guards it. */
  mount(router: Router): void {
    const token = this.settings.token;
    if (this.settings.port !== undefined || token === undefined) return;
    router.get(METRICS_PATH, async (ctx) => {
      if (!carriesToken(ctx.get('authorization') || undefined, token)) {
        ctx.status = 401;
        ctx.set('WWW-Authenticate', 'Bearer realm="metrics"');
        ctx.body = { error: { code: 'unauthorized', message: '/metrics needs Authorization: Bearer <METRICS_TOKEN>' } };
        return;
      }
      ctx.body = await this.metrics.render();
      ctx.type = this.metrics.contentType;
    });
  }

  /** Opens the listener of its own with METRICS_PORT; says where /metrics is served, or that it is not. */
  async listen(): Promise<void> {
    const { port, host, token } = this.settings;
    if (port === undefined) {
      if (token === undefined) this.logger.info('/metrics is not served: set METRICS_TOKEN (scrapes send it as a bearer token) or METRICS_PORT (a listener of its own)');
      return;
    }
    const server = createServer({ headersTimeout: 10_000, requestTimeout: 30_000 }, (request, response) => void this.answer(request, response));
    server.maxConnections = MAX_SCRAPER_CONNECTIONS;
    await listen(server, { port, host }, 'METRICS_PORT');
    this.server = server;
    // Not "token": the logger redacts every field of that name, a yes or no included.
    this.logger.info({ metricsPort: this.port, host, tokenRequired: token !== undefined }, '/metrics served on its own port');
  }

  /** The metrics listener's port as listening; none without METRICS_PORT. */
  get port(): number | undefined {
    return this.server ? (this.server.address() as AddressInfo).port : undefined;
  }

  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await closed;
  }

  private async answer(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = (request.url ?? '').split('?')[0];
    if (path !== METRICS_PATH) return void response.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
    if (request.method !== 'GET' && request.method !== 'HEAD') return void response.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain' }).end('method not allowed\n');
    const token = this.settings.token;
    if (token !== undefined && !carriesToken(request.headers.authorization, token)) {
      return void response.writeHead(401, { 'www-authenticate': 'Bearer realm="metrics"', 'content-type': 'text/plain' }).end('/metrics needs Authorization: Bearer <METRICS_TOKEN>\n');
    }
    try {
      const page = await this.metrics.render();
      response.writeHead(200, { 'content-type': this.metrics.contentType });
      response.end(request.method === 'HEAD' ? undefined : page);
    } catch (error) {
      this.logger.error({ err: error }, '/metrics could not be rendered');
      response.writeHead(500, { 'content-type': 'text/plain' }).end('internal error\n');
    }
  }
}
