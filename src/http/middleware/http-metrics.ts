// Counts every HTTP request and times it, by method, route and status. The route is the
// router's template (`/api/ext/v1/sms/:id`), never the path a client wrote: paths carry ids, and
// a label value per id would grow the series without bound. Requests no route matched share
// the route "unmatched".
import type { Context, Next } from 'koa';
import type { Metrics } from '../../common/metrics.ts';

export const HTTP_REQUESTS = 'http_requests_total';
export const HTTP_DURATION = 'http_request_duration_seconds';
const REQUESTS_HELP = 'HTTP requests answered, by method, route template and status';
const DURATION_HELP = 'time to answer an HTTP request (seconds), by method, route template and status';
const LABELS = ['method', 'route', 'status'];

// Any other method a client sends is counted as "other": the label stays a short list.
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** Outermost middleware: it sees the final status, after the error handler wrote it. */
export function httpMetrics(metrics: Metrics) {
  metrics.declareCounter(HTTP_REQUESTS, REQUESTS_HELP, LABELS);
  metrics.declareHistogram(HTTP_DURATION, DURATION_HELP, LABELS);
  return async function httpMetricsMiddleware(ctx: Context, next: Next) {
    const started = performance.now();
    try {
      await next();
    } finally {
      const matched: unknown = (ctx as Context & { _matchedRoute?: unknown })._matchedRoute;
      const labels = {
        method: METHODS.has(ctx.method) ? ctx.method : 'other',
        route: typeof matched === 'string' ? matched : 'unmatched',
        status: String(ctx.status),
      };
      metrics.count(HTTP_REQUESTS, REQUESTS_HELP, labels);
      metrics.observe(HTTP_DURATION, DURATION_HELP, labels, (performance.now() - started) / 1000);
    }
  };
}
