// Refuses API requests the gateway cannot serve soon (see common/admission.ts): an immediate 503
// with Retry-After, before the body is read, the key checked or the database asked anything.
// Health, metrics and the docs stay outside: orchestrators and operators need them most when
// the gateway is busiest.
import type { Context, Next } from 'koa';
import { AppError } from '../../common/errors.ts';
import type { Admission } from '../../common/admission.ts';
import type { Metrics } from '../../common/metrics.ts';
import type { Logger } from '../../common/logger.ts';

/** Seconds a refused client waits before it tries again. */
export const OVERLOAD_RETRY_AFTER_SECONDS = 1;

const OPERATIONAL = /^\/(?:healthz|readyz|metrics|docs)(?:\/|$)|^\/api\/ext\/v1\/openapi\.json$/;

export function admissionControl(admission: Admission, metrics: Metrics, logger: Logger) {
  // One line when refusing starts and one when it ends, whatever the number refused between.
  let episode: { since: number; refused: number } | undefined;
  return async function admissionMiddleware(ctx: Context, next: Next) {
    if (OPERATIONAL.test(ctx.path)) return next();
    const refused = admission.tryEnter();
    if (!refused && episode) {
      logger.info({ refused: episode.refused, ms: Date.now() - episode.since }, 'admitting API requests again');
      episode = undefined;
    }
    if (refused) {
      if (!episode) {
        episode = { since: Date.now(), refused: 0 };
        logger.warn({ reason: refused, ...admission.current }, 'overloaded: refusing API requests with 503 until load falls');
      }
      episode.refused++;
      metrics.count('http_requests_refused_total', 'API requests refused by admission control (503)', { reason: refused });
      ctx.set('Retry-After', String(OVERLOAD_RETRY_AFTER_SECONDS));
      throw new AppError('overloaded');
    }
    const started = performance.now();
    try {
      await next();
    } finally {
      admission.leave(performance.now() - started);
    }
  };
}
