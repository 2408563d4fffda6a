// Extended API v1: SMS (spec 2.2, 4.1).
import { defineRoute } from '../../http/route.ts';
import { decodeCursor, page } from '../../http/pagination.ts';
import { presentSms, presentSmsDetail } from './presenter.ts';
import { CreateSmsBody, SmsDetail, SmsIdParams, SmsList, SmsListQuery, SmsView } from './schema.ts';
import type { MessageService } from './service.ts';
import { fromExtendedStatus } from './status.ts';

export function messageRoutes(messages: MessageService) {
  return [
    defineRoute({
      method: 'post',
      path: '/sms',
      operationId: 'createSms',
      summary: 'Send an SMS',
      description:
        'spec 4.1. Answers 201 once the SMS is stored (status pending). Without device_id the gateway picks an online device ' +
        'that may send, the least busy first; with none online the SMS waits (device_id null) and goes out when one connects. ' +
        'With no_store true nothing is stored, and the request is refused with 503 when no online device can take it now.',
      tag: 'SMS',
      permission: 'sms:send',
      body: CreateSmsBody,
      responses: { 201: { description: 'the SMS, status pending', schema: SmsView } },
      errors: ['validation_failed', 'message_too_long', 'invalid_phone', 'device_not_found', 'device_cannot_send', 'no_device_available'],
      async handle({ auth, body }) {
        const sms = await messages.create(auth.accountId, {
          phone: body.phone,
          message: body.message,
          deviceId: body.device_id,
          noStore: body.no_store,
        });
        return { status: 201, body: presentSms(sms) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/sms',
      operationId: 'listSms',
      summary: 'List stored SMS, newest first',
      tag: 'SMS',
      permission: 'sms:read',
      query: SmsListQuery,
      responses: { 200: { description: 'a page of SMS', schema: SmsList } },
      async handle({ auth, query }) {
        const rows = await messages.list(
          auth.accountId,
          {
            ...(query.status ? { statuses: fromExtendedStatus(query.status) } : {}),
            ...(query.device_id ? { deviceId: query.device_id } : {}),
            ...(query.from ? { from: new Date(query.from) } : {}),
            ...(query.to ? { to: new Date(query.to) } : {}),
          },
          query.limit,
          decodeCursor(query.cursor),
        );
        const { rows: kept, nextCursor } = page(rows, query.limit);
        return { status: 200, body: { data: kept.map(presentSms), next_cursor: nextCursor } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/sms/:id',
      operationId: 'getSms',
      summary: 'Read one SMS with its status history',
      tag: 'SMS',
      permission: 'sms:read',
      params: SmsIdParams,
      responses: { 200: { description: 'the SMS and every status it went through, oldest first', schema: SmsDetail } },
      errors: ['invalid_id', 'sms_not_found'],
      async handle({ auth, params }) {
        const sms = await messages.get(auth.accountId, params.id);
        return { status: 200, body: presentSmsDetail(sms, await messages.history(sms.id)) };
      },
    }),
  ];
}
