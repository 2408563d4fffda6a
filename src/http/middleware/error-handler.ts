// Turns every error into the catalog's body. Anything that is not a known client
// error is logged with its stack and answered with a plain 500 that leaks nothing. A database
// outage is not a bug: it is a 503 database_unavailable with Retry-After, logged once when it
// starts and once when a statement is answered again (not when a request that read nothing, such
// as /healthz, succeeds).
import type { Knex } from 'knex';
import type { Context, Next } from 'koa';
import { AppError, ERROR_CATALOG, type ErrorCode } from '../../common/errors.ts';
import type { Logger } from '../../common/logger.ts';
import { OutageNotice } from '../../common/outage-notice.ts';
import { endOutageWhenAnswered, isLostLockRace } from '../../storage/database-errors.ts';

/** Seconds a client waits before retrying while the database is unreachable. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;
/** Seconds a client waits before retrying a request that lost a race for locks. */
const LOCK_RACE_RETRY_AFTER_SECONDS = 1;

/** `database`: whose answered statements end an outage; without it an outage is logged as it starts only. */
export function errorHandler(fallbackLogger: Logger, database?: Knex) {
  const outage = new OutageNotice(fallbackLogger, 'API requests answered 503 database_unavailable');
  if (database) endOutageWhenAnswered(database, outage);
  return async function errorHandlerMiddleware(ctx: Context, next: Next) {
    try {
      await next();
      // Koa answers an unmatched path with a bare 404, the router a wrong method with a bare 405.
      const bare = BY_STATUS[ctx.status];
      if (bare && (ctx.body === undefined || ctx.body === null)) throw new AppError(bare);
    } catch (error) {
      if (!(error instanceof AppError) && outage.failed(error)) {
        ctx.set('Retry-After', String(DATABASE_RETRY_AFTER_SECONDS));
        ctx.status = 503;
        ctx.body = new AppError('database_unavailable').toBody();
        return;
      }
      // A deadlock or a serialization failure rolled the request's transaction back whole: nothing
      // was written, and the same request succeeds when retried (a migration of a rolling upgrade
      // locking tables in another order than a request, for one). Not a bug of the request's.
      if (isLostLockRace(error)) {
        // The code alone: the failed statement, as the driver quotes it, carries the request's values.
        ((ctx.state.logger as Logger | undefined) ?? fallbackLogger).warn({ sqlState: (error as { code?: unknown }).code }, 'request lost a race for database locks; answered 503 to retry');
        ctx.set('Retry-After', String(LOCK_RACE_RETRY_AFTER_SECONDS));
        ctx.status = 503;
        ctx.body = new AppError('overloaded').toBody();
        return;
      }
      const appError = toAppError(error);
      if (appError.code === 'internal_error') {
        ((ctx.state.logger as Logger | undefined) ?? fallbackLogger).error({ err: error }, 'unhandled error');
      }
      ctx.status = appError.status;
      ctx.body = appError.toBody();
    }
  };
}

const BY_STATUS: Record<number, ErrorCode> = {
  400: 'validation_failed',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'route_not_found',
  405: 'method_not_allowed',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  501: 'not_implemented',
};

function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  // Errors thrown by Koa and the router (http-errors) carry a status; map the ones we expect.
  const status = (error as { status?: unknown }).status;
  if (typeof status === 'number' && BY_STATUS[status]) {
    const code = BY_STATUS[status]!;
    return new AppError(code, ERROR_CATALOG[code].message);
  }
  return new AppError('internal_error');
}
