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
    // Most requests log nothing: the child logger carrying the id is made when something logs.
    let child: Logger | undefined;
    Object.defineProperty(ctx.state, 'logger', {
      get: () => (child ??= logger.child({ requestId })),
      set: (replaced: Logger) => void (child = replaced),
      enumerable: true,
      configurable: true,
    });
    ctx.set('X-Request-Id', requestId);
    const started = performance.now();
    try {
      await next();
    } finally {
      // A 503 is the gateway protecting itself (overload, database outage): expected under
      // stress, logged once per episode where it is decided, so not an error line per request.
      const failed = ctx.status >= 500 && ctx.status !== 503;
      if (failed || logger.isLevelEnabled('debug')) writeAccessLine(ctx, started, failed);
    }
  };
}

/** The access line: at debug, or as an error for a failed request. */
function writeAccessLine(ctx: Context, started: number, failed: boolean): void {
  const line = {
    method: ctx.method,
    path: ctx.path,
    status: ctx.status,
    ms: Math.round((performance.now() - started) * 10) / 10,
    accountId: ctx.state.accountId as string | undefined,
  };
  if (failed) (ctx.state.logger as Logger).error(line, 'request failed');
  else (ctx.state.logger as Logger).debug(line, 'request');
}
