// Extended API v1: SMS received by the account's devices.
import { defineRoute } from '../../http/route.ts';
import { decodeCursor, page } from '../../http/pagination.ts';
import { presentIncoming } from './presenter.ts';
import { IncomingList, IncomingListQuery } from './schema.ts';
import type { IncomingService } from './service.ts';

export function incomingRoutes(incoming: IncomingService) {
  return [
    defineRoute({
      method: 'get',
      path: '/incoming',
      operationId: 'listIncomingSms',
      summary: 'List SMS received by the account\'s devices, newest first',
      description: 'Devices forward received SMS only while their forward_incoming_sms setting is on.',
      tag: 'Incoming SMS',
      permission: 'sms:read',
      query: IncomingListQuery,
      responses: { 200: { description: 'a page of received SMS', schema: IncomingList } },
      async handle({ auth, query }) {
        const rows = await incoming.list(auth.accountId, query.limit, decodeCursor(query.cursor), query.device_id);
        const { rows: kept, nextCursor } = page(rows, query.limit);
        return { status: 200, body: { data: kept.map(presentIncoming), next_cursor: nextCursor } };
      },
    }),
  ];
}
