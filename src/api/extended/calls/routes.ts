// Extended API v1: the call log the account's phones report. The recording's own
// routes (upload, download) live in ./recordings.
import { decodeCursor, pageBy } from '../../../http/pagination.ts';
import { presentCall } from '../../../modules/calls/presenter.ts';
import { call } from './resource.ts';
import { CallList, CallListQuery } from '../../../modules/calls/schema.ts';
import type { CallService } from '../../../modules/calls/service.ts';

export function callRoutes(calls: CallService) {
  return [
    call.route({
      method: 'get',
      path: '/calls',
      operationId: 'listCalls',
      summary: 'List the calls the account\'s phones reported, newest first',
      description:
        'Newest call first (by started_at). device_id, direction, phone (normalized as the phones\' reports are) and ' +
        'from/to (started at or after / before) narrow the list and combine. A deleted phone\'s calls are deleted with it.',
      query: CallListQuery,
      responses: { 200: { description: 'a page of calls, each with its recording or null', schema: CallList } },
      async handle({ auth, query }) {
        const rows = await calls.list(
          auth.accountId,
          {
            ...(query.device_id ? { deviceId: query.device_id } : {}),
            ...(query.direction ? { direction: query.direction } : {}),
            ...(query.phone ? { phone: query.phone } : {}),
            ...(query.from ? { from: new Date(query.from) } : {}),
            ...(query.to ? { to: new Date(query.to) } : {}),
          },
          query.limit,
          decodeCursor(query.cursor),
        );
        // Calls are ordered by when they started, not when they were stored (a phone may report
        // late), so the cursor holds the started_at and id of the last one.
        const { rows: kept, nextCursor } = pageBy(rows, query.limit, ({ call }) => ({ created_at: call.started_at, id: call.id }));
        return { status: 200, body: { data: kept.map((row) => presentCall(row.call, row.recording)), next_cursor: nextCursor } };
      },
    }),
    call.get({
      path: '/calls/:id',
      operationId: 'getCall',
      summary: 'Read one call with its recording\'s metadata (or null)',
      read: ({ auth, params }) => calls.get(auth.accountId, params.id),
    }),
    call.remove({
      path: '/calls/:id',
      operationId: 'deleteCall',
      summary: 'Delete a call and its recording (the audio file too)',
      remove: ({ auth, params }) => calls.delete(auth.accountId, params.id),
    }),
  ];
}
