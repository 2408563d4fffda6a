// What upstream providers post back: a Twilio-compatible provider's status callbacks (the receipts
// of what it sent for the gateway) and its inbound webhook (SMS sent to the account's number
// there). No API key: each post is proved by its signature (X-Twilio-Signature, under the
// upstream's auth token), and a forged one is refused 403. The URL signed is the one the gateway
// gave the provider, under PUBLIC_URL.
import type Router from '@koa/router';
import type { Context } from 'koa';
import type { UpstreamLinks } from '../../modules/upstreams/links/manager.ts';
import { TwilioLink } from '../../modules/upstreams/links/twilio/index.ts';
import { TwilioError } from '../../modules/twilio/errors.ts';
import { incomingCallbackPath, statusCallbackPath } from '../../modules/upstreams/links/factory.ts';
import { readForm } from '../twilio/form-body.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function mountUpstreamCallbacks(router: Router, parts: { links: UpstreamLinks; publicUrl: string | undefined; bodyLimitBytes: number }): void {
  router.post(statusCallbackPath(':id'), (ctx) => receive(ctx, parts, 'status'));
  router.post(incomingCallbackPath(':id'), (ctx) => receive(ctx, parts, 'incoming'));
}

async function receive(ctx: Context & { params: Record<string, string> }, parts: { links: UpstreamLinks; publicUrl: string | undefined; bodyLimitBytes: number }, what: 'status' | 'incoming'): Promise<void> {
  const id = ctx.params.id ?? '';
  const link = UUID.test(id) ? parts.links.get(id.toLowerCase()) : undefined;
  if (!(link instanceof TwilioLink)) {
    ctx.status = 404;
    ctx.body = { error: { code: 'upstream_not_found', message: 'no Twilio-compatible upstream of this id is connected here' } };
    return;
  }
  let params: Map<string, string>;
  try {
    params = await readForm(ctx, parts.bodyLimitBytes);
  } catch (error) {
    if (!(error instanceof TwilioError)) throw error;
    ctx.status = error.status;
    ctx.body = { error: { code: 'invalid_callback', message: error.message } };
    return;
  }
  // The provider signed the URL it was given: PUBLIC_URL's origin with this path.
  const url = parts.publicUrl ? new URL(ctx.url, parts.publicUrl).toString() : ctx.href;
  const form = Object.fromEntries(params);
  const signature = ctx.get('x-twilio-signature') || undefined;
  const result = what === 'status' ? await link.receiveStatusCallback(url, form, signature) : await link.receiveIncoming(url, form, signature);
  if (result === 'forged') {
    ctx.status = 403;
    ctx.body = { error: { code: 'invalid_signature', message: 'X-Twilio-Signature does not match this upstream\'s auth token' } };
    return;
  }
  ctx.status = 204;
}
