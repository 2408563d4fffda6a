// Extended API v1: SMS received by the account's devices.
import { groupRoutes } from '../../../http/resource-routes.ts';
import { presentIncoming } from '../../../modules/incoming/presenter.ts';
import { IncomingList, IncomingListQuery } from '../../../modules/incoming/schema.ts';
import type { IncomingService } from '../../../modules/incoming/service.ts';

export function incomingRoutes(incoming: IncomingService) {
  const received = groupRoutes({ tag: 'Incoming SMS', read: 'sms:read' });
  return [
    received.list({
      path: '/incoming',
      operationId: 'listIncomingSms',
      summary: 'List SMS received by the account\'s devices, newest first',
      description: 'Devices forward received SMS only while their forward_incoming_sms setting is on.',
      query: IncomingListQuery,
      answer: { description: 'a page of received SMS', schema: IncomingList },
      list: ({ auth, query }, cursor) => incoming.list(auth.accountId, query.limit, cursor, query.device_id),
      present: presentIncoming,
    }),
  ];
}
