// Extended API v1: GET /events, a server-sent event stream of what changes in the account, for
// the control panel (and any client that prefers a stream to a webhook). Authorised like every
// route: a session cookie or a key; each event goes only to streams whose caller may read it.
import { PassThrough } from 'node:stream';
import { Type } from '@sinclair/typebox';
import { AppError } from '../../../common/errors.ts';
import { defineRoute } from '../../../http/route.ts';
import { MAX_STREAMS_PER_ACCOUNT, type LiveEvent, type LiveHub, type LiveStream } from '../../../modules/live/hub.ts';

/** A comment line this often keeps proxies and load balancers from closing an idle stream. */
const KEEPALIVE_MS = 25_000;
/** What the browser waits before reconnecting after a drop. */
const RETRY_MS = 3_000;
/** A stream whose reader has fallen this far behind is closed; the browser reconnects and reloads. */
const MAX_BUFFERED_BYTES = 1 << 20;

export function liveRoutes(hub: LiveHub) {
  return [
    defineRoute({
      method: 'get',
      path: '/events',
      operationId: 'streamEvents',
      summary: 'Stream the account\'s changes as server-sent events',
      description:
        'text/event-stream. Events: `sms.status` {id, status, internal_status, at, reason, device_id} when a stored SMS ' +
        'changes status (status as the SMS view names it, internal_status the step, as in its history); ' +
        '`device.presence` {id, online, at} when a device connects or goes offline (needs devices:read); `sms.received` ' +
        '{id, device_id, at} when a device forwards an incoming SMS. Ids and states only: read the rest through the API. ' +
        'A comment line every 25 s keeps the connection open. Events are not replayed after a reconnect: reload what ' +
        `you show. At most ${MAX_STREAMS_PER_ACCOUNT} open streams per account (429 too_many_streams).`,
      tag: 'Events',
      permission: 'sms:read',
      responses: { 200: { description: 'the event stream', contentType: 'text/event-stream', schema: Type.String({ description: 'server-sent events' }) } },
      errors: ['too_many_streams'],
      async handle({ auth, ctx }) {
        const body = new PassThrough();
        let keepalive: NodeJS.Timeout | undefined;
        const stream: LiveStream = {
          permissions: auth.permissions,
          send(event: LiveEvent) {
            if (body.writableLength > MAX_BUFFERED_BYTES) return stream.end();
            body.write(`event: ${event.type}\ndata: ${JSON.stringify(event.data)}\n\n`);
          },
          end() {
            clearInterval(keepalive);
            hub.remove(auth.accountId, stream);
            body.end();
          },
        };
        if (!hub.add(auth.accountId, stream)) throw new AppError('too_many_streams');
        keepalive = setInterval(() => body.write(': keepalive\n\n'), KEEPALIVE_MS);
        keepalive.unref();
        ctx.req.once('close', () => stream.end());
        // Sent at once, so the browser's EventSource opens before the first event.
        body.write(`retry: ${RETRY_MS}\n: connected\n\n`);
        return {
          status: 200,
          // connection: close: a stream's connection is never reused, so ending the stream (the
          // gateway stopping) closes it at once rather than leaving an idle socket to time out.
          headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', 'x-accel-buffering': 'no', connection: 'close' },
          body,
        };
      },
    }),
  ];
}
