// Extended API v1: USSD through the account's phones (docs/ussd.md). Dialling and replying need
// sms:send, as sending an SMS does (both cost the SIM's owner and speak for them); reading needs
// sms:read.
import { resourceRoutes } from '../../../http/resource-routes.ts';
import { presentUssd } from '../../../modules/ussd/presenter.ts';
import { UssdIdParams, UssdList, UssdListQuery, UssdReplyBody, UssdStartBody, UssdView } from '../../../modules/ussd/schema.ts';
import { DeviceIdParams } from '../../../modules/devices/schema.ts';
import type { UssdService } from '../../../modules/ussd/service.ts';

export function ussdRoutes(ussd: UssdService) {
  const session = resourceRoutes({
    tag: 'USSD',
    read: 'sms:read',
    write: 'sms:send',
    params: UssdIdParams,
    missing: ['invalid_id', 'ussd_not_found'],
    one: { description: 'the session', schema: UssdView },
    present: presentUssd,
  });
  return [
    session.route({
      method: 'post',
      path: '/devices/:id/ussd',
      operationId: 'startUssd',
      summary: 'Dial a USSD code (*100#) on one of the account\'s phones',
      description:
        'Answers 202 with the session, pending: the phone dials and reports the network\'s answer. Read it with GET /ussd/{id} ' +
        '(or get the ussd.completed / ussd.failed webhook). A menu makes it waiting_reply: answer with POST /ussd/{id}/reply. ' +
        'Each answer is waited for timeout_seconds (default USSD_TIMEOUT, 30 s); then the session fails with error "timeout". ' +
        'The phone must be online now (409 device_offline: nothing is queued), and runs one session at a time (409 ussd_busy).',
      params: DeviceIdParams,
      body: UssdStartBody,
      responses: { 202: { description: 'the session, pending', schema: UssdView } },
      errors: ['invalid_id', 'device_not_found', 'device_not_capable', 'device_offline', 'ussd_busy'],
      async handle({ auth, params, body }) {
        const row = await ussd.start(auth.accountId, params.id, { code: body.code, sim: body.sim, timeoutSeconds: body.timeout_seconds });
        return { status: 202, body: presentUssd(row) };
      },
    }),
    session.list({
      path: '/devices/:id/ussd',
      operationId: 'listDeviceUssd',
      summary: 'List a phone\'s USSD sessions, newest first',
      params: DeviceIdParams,
      query: UssdListQuery,
      answer: { description: 'a page of sessions', schema: UssdList },
      errors: ['invalid_id', 'device_not_found'],
      list: ({ auth, params, query }, cursor) => ussd.listForDevice(auth.accountId, params.id, query.limit, cursor),
    }),
    session.get({
      path: '/ussd/:id',
      operationId: 'getUssd',
      summary: 'Read a USSD session: its status, the network\'s text, what was said',
      read: ({ auth, params }) => ussd.get(auth.accountId, params.id),
    }),
    session.routeOnOne({
      method: 'post',
      path: '/ussd/:id/reply',
      operationId: 'replyUssd',
      summary: 'Answer the network\'s USSD menu (a session waiting_reply)',
      description:
        'Sends the text (usually a digit) to the phone as the next step: the session is pending again until the network answers ' +
        'with another menu (waiting_reply), the final answer (completed) or a failure.',
      body: UssdReplyBody,
      responses: { 202: { description: 'the session, pending again', schema: UssdView } },
      errors: ['ussd_not_waiting', 'device_offline'],
      async handle({ auth, params, body }) {
        return { status: 202, body: presentUssd(await ussd.reply(auth.accountId, params.id, body.text)) };
      },
    }),
  ];
}
