// Extended API v1: the account's retention setting, and an export of everything its messages hold.
import { Readable } from 'node:stream';
import { defineRoute } from '../../http/route.ts';
import { readOneRoute } from '../../http/resource-routes.ts';
import { exportCsv, exportJson, type ExportParts } from '../../use-cases/export-account.ts';
import { presentRetention } from './presenter.ts';
import { ExportDocument, ExportQuery, RetentionBody, RetentionView } from './schema.ts';

const TAG = 'Retention and export';

export function retentionRoutes(parts: ExportParts) {
  return [
    readOneRoute({
      path: '/account/retention',
      operationId: 'getRetention',
      summary: 'How long the account keeps message text, and whether numbers are then hashed',
      tag: TAG,
      permission: 'sms:read',
      answer: { description: 'the setting', schema: RetentionView },
      read: async ({ auth }) => presentRetention(await parts.retention.get(auth.accountId)),
    }),
    defineRoute({
      method: 'put',
      path: '/account/retention',
      operationId: 'setRetention',
      summary: 'Set how long the account keeps message text (null: for ever), and whether numbers are then hashed',
      description:
        'An hourly sweep removes the text of sent SMS that left the queue and of received SMS older than keep_text_days ' +
        '(the rows, statuses, times and counts stay for statistics; the message reads "" and redacted: true). With ' +
        'hash_recipients their numbers, and those of conversations quiet that long, become "hmac:" + HMAC-SHA256 under a ' +
        'key of the account: the same number hashes alike, so counts per number still work. Neither can be undone.',
      tag: TAG,
      permission: 'sms:delete',
      body: RetentionBody,
      responses: { 200: { description: 'the setting', schema: RetentionView } },
      errors: ['validation_failed'],
      async handle({ auth, body }) {
        const settings = await parts.retention.update(auth.accountId, { keep_text_days: body.keep_text_days, hash_recipients: body.hash_recipients ?? false });
        return { status: 200, body: presentRetention(settings) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/account/export',
      operationId: 'exportAccount',
      summary: 'Export the account\'s SMS, received SMS and conversations (JSON, or CSV with format=csv), streamed',
      description:
        'Streamed as it is read, a page at a time: any size of account. CSV: one row per record, the columns of a JSON ' +
        'record, a header row first; text a spreadsheet would run as a formula starts with an apostrophe.',
      tag: TAG,
      permission: 'sms:read',
      query: ExportQuery,
      responses: { 200: { description: 'the export (text/csv with format=csv)', schema: ExportDocument } },
      async handle({ auth, query }) {
        const csv = query.format === 'csv';
        const stream = Readable.from(csv ? exportCsv(parts, auth.accountId) : exportJson(parts, auth.accountId));
        return {
          status: 200,
          headers: {
            'Content-Type': csv ? 'text/csv; charset=utf-8' : 'application/json; charset=utf-8',
            'Content-Disposition': `attachment; filename="account-export.${csv ? 'csv' : 'json'}"`,
            'Cache-Control': 'no-store',
          },
          body: stream,
        };
      },
    }),
  ];
}
