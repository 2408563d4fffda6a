// Gives every request an id (the caller's X-Request-Id when it is sane, else a new one),
// returns it in the response, and writes one access log line per request. The line carries
// the path but never the query string: search terms may hold phone numbers or message text.
import { randomUUID } from 'node:crypto';
import type { Context, Next } from 'koa';
import type { Logger } from '../../common/logger.ts';

const SANE_REQUEST_ID = /^[\w.:-]{1,64}$/;

export function requestContext(logger: Logger) {
  return async function requestContextMiddleware(ctx: Context, next: Next) {
    const given = ctx.get('x-request-id');
    const requestId = SANE_REQUEST_ID.test(given) ? given : randomUUID();
    ctx.state.requestId = requestId;
    ctx.state.logger = logger.child({ requestId });
    ctx.set('X-Request-Id', requestId);
    const started = performance.now();
    try {
      await next();
    } finally {
      const line = {
        method: ctx.method,
        path: ctx.path,
        status: ctx.status,
        ms: Math.round((performance.now() - started) * 10) / 10,
        accountId: ctx.state.accountId as string | undefined,
      };
      // A 503 is the gateway protecting itself (overload, database outage): expected under
      // stress, logged once per episode where it is decided, so not an error line per request.
      if (ctx.status >= 500 && ctx.status !== 503) ctx.state.logger.error(line, 'request failed');
      else ctx.state.logger.debug(line, 'request');
    }
  };
}
