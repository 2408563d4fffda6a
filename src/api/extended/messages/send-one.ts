// Sending one SMS over the Extended API (POST /sms, /sms/encrypted, /sms/data): the SMS is
// created through the create-SMS use case once per Idempotency-Key and answered 201 as the API
// presents an SMS; a replay carries Idempotent-Replayed. Each route says only how its body becomes
// an SMS.
import type { Context } from 'koa';
import type { RouteResult } from '../../../http/route.ts';
import type { RequestAuth } from '../../../http/middleware/authenticate.ts';
import { idempotencyKey, withReplayHeader } from '../../../http/idempotent-request.ts';
import { createSms, type CreateSmsParts } from '../../../use-cases/create-sms.ts';
import { presentSms } from '../../../modules/messages/presenter.ts';
import type { PreparedSms } from '../../../modules/messages/service.ts';

export interface SendOneRequest {
  auth: RequestAuth;
  ctx: Context;
  /** The body as received: a retry with the same key must send the same. */
  body: unknown;
}

/** `prepare` checks the SMS the body asks for (reads only); `operation` names the route for the key. */
export async function sendOneSms(
  parts: CreateSmsParts,
  { auth, ctx, body }: SendOneRequest,
  operation: string,
  prepare: () => Promise<PreparedSms>,
): Promise<RouteResult> {
  const result = await createSms(
    parts,
    auth.accountId,
    { key: idempotencyKey(ctx), operation, body },
    async () => [await prepare()],
    ([sms]) => ({ status: 201, body: presentSms(sms!) }),
  );
  return withReplayHeader(result);
}
