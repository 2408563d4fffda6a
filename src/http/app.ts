// Assembles the Koa application: request context and errors, then the API families,
// the OpenAPI document, the reference page and the health endpoints.
import Koa from 'koa';
import Router from '@koa/router';
import type { Knex } from 'knex';
import type { Logger } from '../common/logger.ts';
import { errorHandler } from './middleware/error-handler.ts';
import { createBodyReader } from './middleware/json-body.ts';
import { requestContext } from './middleware/request-context.ts';
import type { Authenticator } from './middleware/authenticate.ts';
import { mountRoutes } from './route.ts';
import { buildOpenApi, type ApiFamily } from './openapi.ts';
import { mountDocs } from './docs/routes.ts';
import { trustClientAddresses } from './middleware/client-address.ts';
import type { TrustedProxies } from '../common/client-address.ts';
import { EXTENDED_PREFIX } from './extended-prefix.ts';

export interface AppParts {
  logger: Logger;
  authenticator: Authenticator;
  bodyLimitBytes: number;
  families: ApiFamily[];
  version: string;
  /** PUBLIC_URL, named as the server in the OpenAPI document. */
  publicUrl?: string | undefined;
  /** Routes outside the API families (health). */
  mountExtra?: (router: Router) => void;
  /** Runs first, around everything else, so it sees every request's final status: request metrics. */
  measure?: Koa.Middleware;
  /** Load balancers whose X-Forwarded-For is believed (TRUSTED_PROXIES); none: the socket's peer counts. */
  trustedProxies?: TrustedProxies;
  /** The database the routes use: an outage is over once it answers a statement again. */
  database?: Knex;
}

export function createApp(parts: AppParts): Koa {
  const app = new Koa({ proxy: false });
  // Errors are answered by errorHandler; Koa's own handler would only log them twice.
  app.silent = true;

  const router = new Router();
  const readBody = createBodyReader(parts.bodyLimitBytes);
  const allowOfFixed = new Map<string, string>();
  for (const family of parts.families) {
    const allow = mountRoutes(router, family.routes, {
      prefix: family.prefix,
      ignoresUnknownQuery: family.ignoresUnknownQuery ?? false,
      authenticator: parts.authenticator,
      readBody,
      readerFor: createBodyReader,
    });
    for (const [path, methods] of allow) allowOfFixed.set(path, methods);
  }
  const openApi = buildOpenApi(parts.families, parts.version, { publicUrl: parts.publicUrl });
  router.get(`${EXTENDED_PREFIX}/openapi.json`, (ctx) => {
    ctx.body = openApi;
  });
  mountDocs(router);
  parts.mountExtra?.(router);

  if (parts.trustedProxies) trustClientAddresses(app, parts.trustedProxies);
  if (parts.measure) app.use(parts.measure);
  app.use(requestContext(parts.logger));
  app.use(errorHandler(parts.logger, parts.database));
  // The router's Allow for /sms/bulk would also name GET, which /sms/:id serves: a fixed path
  // allows what it serves.
  app.use(async (ctx, next) => {
    await next();
    const allow = ctx.status === 405 || ctx.method === 'OPTIONS' ? allowOfFixed.get(ctx.path) : undefined;
    if (allow) ctx.set('Allow', allow);
  });
  app.use(answerOtherMethods());
  app.use(router.routes());
  return app;
}

/**
 * A path the router serves, asked with a method it does not serve, is a 405 with the methods it
 * does serve in Allow, whatever the method: the router's own allowedMethods() answers methods it
 * has never heard of (PROPFIND, PURGE...) with a 501 that the access log records as a server
 * failure. OPTIONS answers with the same Allow. A path nothing serves stays a 404. The 405 has no
 * body here; errorHandler writes the catalog's.
 */
function answerOtherMethods() {
  return async (ctx: Koa.Context, next: Koa.Next) => {
    await next();
    if (ctx.status !== 404 || (ctx.body !== undefined && ctx.body !== null)) return;
    const matched = (ctx as Koa.Context & { matched?: { methods: string[] }[] }).matched ?? [];
    const served = [...new Set(matched.flatMap((layer) => layer.methods))];
    if (served.length === 0) return;
    ctx.set('Allow', served.join(', '));
    if (ctx.method === 'OPTIONS') {
      ctx.status = 204;
      return;
    }
    ctx.status = 405;
  };
}
