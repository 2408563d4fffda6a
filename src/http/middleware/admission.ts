// Refuses API requests the gateway cannot serve soon (see common/admission.ts). The refusal is
// decided before Koa sees the request: no context, no logger, no body read, no key checked, no
// database asked, one pre-serialised answer (503 overloaded, Retry-After), because under overload
// a refusal must cost next to nothing or refusing becomes the overload. Health, metrics, the docs
// and the panel's page and assets stay outside: orchestrators and operators need them most when the
// gateway is busiest (the panel's API calls are admitted like any other).
//
// An admitted request's place is a Ticket, kept by its request: whoever waits for the client on
// the request's behalf (the body readers, the recording upload) gives the place back meanwhile,
// with whileClientSends(), so that requests whose bodies trickle in never hold others' places.
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { AppError } from '../../common/errors.ts';
import type { Admission, RefusalReason, Ticket } from '../../common/admission.ts';
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

const tickets = new WeakMap<IncomingMessage, Ticket>();

/** Thrown when a request that waited for its client finds the gateway overloaded on its return. */
export class OverloadedOnResume extends AppError {
  constructor(readonly reason: RefusalReason) {
    super('overloaded');
  }
}

/**
 * Runs `wait` (reading the body) without holding the request's place when the body is not all
 * in yet, then takes a place again; refused: an OverloadedOnResume (503, Retry-After).
 */
export async function whileClientSends<T>(request: IncomingMessage, wait: () => Promise<T>): Promise<T> {
  const ticket = tickets.get(request);
  // All in already (a small body comes with its headers): nothing to wait for.
  if (!ticket || request.complete) return wait();
  ticket.suspend();
  let result: T;
  try {
    result = await wait();
  } catch (error) {
    // A body that could not be read is answered as always (400, 413...): its place is taken back
    // if there is one, and the answer goes out either way.
    ticket.resume();
    throw error;
  }
  const refused = ticket.resume();
  if (refused) throw new OverloadedOnResume(refused);
  return result;
}

/** Wraps the application's request listener with admission control. */
export function admissionControl(admission: Admission, metrics: Metrics, logger: Logger, serve: RequestListener): RequestListener {
  // One line when refusing starts and one when it ends, whatever the number refused between.
  let episode: { since: number; refused: number } | undefined;
  return function admit(request: IncomingMessage, response: ServerResponse) {
    if (OPERATIONAL.test(request.url ?? '/')) return serve(request, response);
    const admitted = admission.admit();
    if (typeof admitted !== 'string') {
      if (episode) {
        logger.info({ refused: episode.refused, ms: Date.now() - episode.since }, 'admitting API requests again');
        episode = undefined;
      }
      if (LONG_LIVED.test(request.url ?? '')) {
        admitted.suspend();
        admitted.leave();
        return serve(request, response);
      }
      tickets.set(request, admitted);
      // 'close' comes once the answer is sent, or the client went away: either way the place is free.
      response.once('close', () => admitted.leave());
      return serve(request, response);
    }
    const refused = admitted;
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
