// Assembles the Koa application: request context and errors, then the API families,
// the OpenAPI document, the reference page and the health endpoints.
import Koa from 'koa';
import Router from '@koa/router';
import type { Logger } from '../common/logger.ts';
import { errorHandler } from './middleware/error-handler.ts';
import { createBodyReader } from './middleware/json-body.ts';
import { requestContext } from './middleware/request-context.ts';
import type { Authenticator } from './middleware/authenticate.ts';
import { mountRoutes } from './route.ts';
import { buildOpenApi, type ApiFamily } from './openapi.ts';
import { mountDocs } from './docs/routes.ts';

export const EXTENDED_PREFIX = '/api/ext/v1';

export interface AppParts {
  logger: Logger;
  authenticator: Authenticator;
  bodyLimitBytes: number;
  families: ApiFamily[];
  version: string;
  /** Routes outside the API families (health). */
  mountExtra?: (router: Router) => void;
}

export function createApp(parts: AppParts): Koa {
  const app = new Koa({ proxy: false });
  // Errors are answered by errorHandler; Koa's own handler would only log them twice.
  app.silent = true;

  const router = new Router();
  const readBody = createBodyReader(parts.bodyLimitBytes);
  const allowOfFixed = new Map<string, string>();
  for (const family of parts.families) {
    const allow = mountRoutes(router, family.routes, { prefix: family.prefix, authenticator: parts.authenticator, readBody, readerFor: createBodyReader });
    for (const [path, methods] of allow) allowOfFixed.set(path, methods);
  }
  const openApi = buildOpenApi(parts.families, parts.version);
  router.get(`${EXTENDED_PREFIX}/openapi.json`, (ctx) => {
    ctx.body = openApi;
  });
  mountDocs(router);
  parts.mountExtra?.(router);

  app.use(requestContext(parts.logger));
  app.use(errorHandler(parts.logger));
  // The router's Allow for /sms/bulk would also name GET, which /sms/:id serves: a fixed path
  // allows what it serves.
  app.use(async (ctx, next) => {
    await next();
    const allow = ctx.status === 405 ? allowOfFixed.get(ctx.path) : undefined;
    if (allow) ctx.set('Allow', allow);
  });
  app.use(router.routes());
  // Sets 405 (with Allow) or 501 without a body; errorHandler then writes the catalog body.
  app.use(router.allowedMethods());
  return app;
}
