// Refuses API requests the gateway cannot serve soon (see common/admission.ts). The refusal is
// decided before Koa sees the request: no context, no logger, no body read, no key checked, no
// database asked, one pre-serialised answer (503 overloaded, Retry-After), because under overload
// a refusal must cost next to nothing or refusing becomes the overload. Health, metrics, the docs
// and the panel's page and assets stay outside: orchestrators and operators need them most when the
// gateway is busiest (the panel's API calls are admitted like any other).
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { AppError } from '../../common/errors.ts';
import type { Admission } from '../../common/admission.ts';
import type { Metrics } from '../../common/metrics.ts';
import type { Logger } from '../../common/logger.ts';

/** Seconds a refused client waits before it tries again. */
export const OVERLOAD_RETRY_AFTER_SECONDS = 1;

const OPERATIONAL = /^\/(?:healthz|readyz|metrics|docs)(?:[/?]|$)|^\/api\/ext\/v1\/openapi\.json(?:\?|$)|^\/(?:\?|$)|^\/panel\/assets\//;
// The live event stream stays open for hours: it is admitted like any request, then gives its
// place back at once, or a few open panels would hold the in-flight limit for good.
const LONG_LIVED = /^\/api\/ext\/v1\/events(?:\?|$)/;
const REFUSAL_BODY = JSON.stringify(new AppError('overloaded').toBody());
const REFUSAL_HEADERS = {
  'content-type': 'application/json; charset=utf-8',
  'content-length': String(Buffer.byteLength(REFUSAL_BODY)),
  'retry-after': String(OVERLOAD_RETRY_AFTER_SECONDS),
};

/** Wraps the application's request listener with admission control. */
export function admissionControl(admission: Admission, metrics: Metrics, logger: Logger, serve: RequestListener): RequestListener {
  // One line when refusing starts and one when it ends, whatever the number refused between.
  let episode: { since: number; refused: number } | undefined;
  return function admit(request: IncomingMessage, response: ServerResponse) {
    if (OPERATIONAL.test(request.url ?? '/')) return serve(request, response);
    const refused = admission.tryEnter();
    if (!refused) {
      if (episode) {
        logger.info({ refused: episode.refused, ms: Date.now() - episode.since }, 'admitting API requests again');
        episode = undefined;
      }
      if (LONG_LIVED.test(request.url ?? '')) {
        admission.leave();
        return serve(request, response);
      }
      const started = performance.now();
      // 'close' comes once the answer is sent, or the client went away: either way the place is free.
      response.once('close', () => admission.leave(performance.now() - started));
      return serve(request, response);
    }
    if (!episode) {
      episode = { since: Date.now(), refused: 0 };
      logger.warn({ reason: refused, ...admission.current }, 'overloaded: refusing API requests with 503 until load falls');
    }
    episode.refused++;
    metrics.count('http_requests_refused_total', 'API requests refused by admission control (503)', { reason: refused });
    // The unread body is discarded by Node's HTTP server; the connection stays usable.
    response.writeHead(503, REFUSAL_HEADERS).end(REFUSAL_BODY);
  };
}
