// A request's body must arrive within HTTP_BODY_TIMEOUT of its headers. A client that announces
// a body and sends it a byte at a time would otherwise keep its connection, its parser and its
// buffers for as long as it likes; hundreds of them are cheap for the client and not for the
// gateway. Past the deadline the answer is 408 and the connection is closed (a request whose
// answer already went out has its connection closed). A body that has arrived in full but is not
// read yet is no client's fault: it is left alone.
//
// Wraps the raw request listener, outside admission control, so that requests refused 503 or 401
// before their body was read are bounded too. Paths given as `exempt` (the phones' recording
// uploads: up to RECORDING_MAX_BYTES over a mobile link) keep only the server's request timeout.
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { AppError } from '../../common/errors.ts';
import type { Metrics } from '../../common/metrics.ts';

export interface BodyDeadlineOptions {
  /** Milliseconds from the headers to the body's last byte; 0: no deadline. */
  timeoutMs: number;
  /** Path prefixes whose bodies may take longer (large uploads). */
  exempt: readonly string[];
  metrics: Metrics;
}

const TIMEOUT_BODY = JSON.stringify(new AppError('request_timeout').toBody());
const TIMEOUT_HEADERS = {
  'content-type': 'application/json; charset=utf-8',
  'content-length': String(Buffer.byteLength(TIMEOUT_BODY)),
  connection: 'close',
};

export function bodyDeadline(options: BodyDeadlineOptions, serve: RequestListener): RequestListener {
  options.metrics.declareCounter('http_body_timeouts_total', BODY_TIMEOUTS_HELP);
  return function withBodyDeadline(request: IncomingMessage, response: ServerResponse) {
    const url = request.url ?? '/';
    if (options.timeoutMs > 0 && announcesBody(request) && !options.exempt.some((prefix) => url.startsWith(prefix))) {
      const timer = setTimeout(() => expire(request, response, options.metrics), options.timeoutMs);
      const clear = () => clearTimeout(timer);
      request.once('end', clear);
      request.once('close', clear);
    }
    return serve(request, response);
  };
}

const BODY_TIMEOUTS_HELP = 'requests whose body did not arrive within HTTP_BODY_TIMEOUT (answered 408, connection closed)';

function announcesBody(request: IncomingMessage): boolean {
  const length = request.headers['content-length'];
  return (length !== undefined && length !== '0') || request.headers['transfer-encoding'] !== undefined;
}

function expire(request: IncomingMessage, response: ServerResponse, metrics: Metrics): void {
  if (request.complete || request.socket.destroyed) return;
  metrics.count('http_body_timeouts_total', BODY_TIMEOUTS_HELP);
  const socket = request.socket;
  if (response.headersSent || response.writableEnded) {
    socket.destroy();
    return;
  }
  response.shouldKeepAlive = false;
  response.writeHead(408, TIMEOUT_HEADERS).end(TIMEOUT_BODY, () => socket.destroy());
}
