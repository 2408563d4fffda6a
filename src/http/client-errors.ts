// Requests Node's HTTP parser refuses never reach the application: a request line with raw
// characters outside ASCII (curl sends `?search=Привет` as typed, unencoded), a malformed header,
// a body framed two ways. Node answers those with a bare status line, no body; a client of the
// API reads every error from {"error": {"message", "code"}}, so these get that body too, with the
// statuses Node gives them: 408 when the headers did not arrive in time (HTTP_HEADERS_TIMEOUT),
// 431 when they are too large, 413 when chunk extensions are, 400 for the rest. The connection
// is closed after the answer, as Node closes it: past a parse error nothing tells where a next
// request would begin.
import { STATUS_CODES, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { AppError } from '../common/errors.ts';

type ParseError = Error & { code?: string; reason?: string };

export function answerClientErrors(server: Server): void {
  server.on('clientError', (error: ParseError, socket: Socket) => {
    // A reset connection cannot be answered, and an answer already under way must not be cut
    // into by another (the client would read a corrupted response).
    const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (error.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
      socket.destroy();
      return;
    }
    const answer = refusal(error);
    const body = JSON.stringify(answer.toBody());
    socket.end(
      `HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
    // A client that never reads its answer does not keep the socket.
    socket.setTimeout(10_000, () => socket.destroy());
  });
}

function refusal(error: ParseError): AppError {
  switch (error.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      // Its headers took longer than HTTP_HEADERS_TIMEOUT, or the whole of it longer than the server's request timeout.
      return new AppError('request_timeout', 'the request did not arrive in time; the connection is closed');
    case 'HPE_HEADER_OVERFLOW':
      return new AppError('headers_too_large');
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return new AppError('payload_too_large', 'the chunk extensions of the request body are too large');
    default: {
      // llhttp's reason names what it met ("Invalid char in url query", "Invalid header token").
      const reason = error.reason ? ` (${error.reason.toLowerCase()})` : '';
      const hint = error.code === 'HPE_INVALID_URL' ? ': a URL must percent-encode spaces, control characters and characters outside ASCII (Ж as %D0%96)' : '';
      return new AppError('malformed_request', `the request is not valid HTTP/1.1${reason}${hint}`);
    }
  }
}
