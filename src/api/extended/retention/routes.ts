// Extended API v1: the account's retention setting, and an export of everything its messages hold.
import { Readable } from 'node:stream';
import { settingsRoutes } from '../../../http/resource-routes.ts';
import { exportCsv, exportJson, type ExportParts } from '../../../use-cases/export-account.ts';
import { presentRetention } from '../../../modules/retention/presenter.ts';
import { ExportDocument, ExportQuery, RetentionBody, RetentionView } from '../../../modules/retention/schema.ts';

export function retentionRoutes(parts: ExportParts) {
  // Setting how long text is kept removes text: it takes the permission deleting SMS takes.
  const retention = settingsRoutes({
    tag: 'Retention and export',
    read: 'sms:read',
    write: 'sms:delete',
    one: { description: 'the setting', schema: RetentionView },
    present: presentRetention,
  });
  return [
    retention.get({
      path: '/account/retention',
      operationId: 'getRetention',
      summary: 'How long the account keeps message text, and whether numbers are then hashed',
      read: ({ auth }) => parts.retention.get(auth.accountId),
    }),
    retention.update({
      method: 'put',
      path: '/account/retention',
      operationId: 'setRetention',
      summary: 'Set how long the account keeps message text (null: for ever), and whether numbers are then hashed',
      description:
        'An hourly sweep removes what messages older than keep_text_days say: the text of sent SMS that left the queue ' +
        'and of received SMS, a data SMS\'s payload, an MMS\'s subject, a received MMS\'s text and subject, the account\'s ' +
        'media (rows and files, but those a queued MMS carries) and its finished webhook deliveries (the rows, statuses, ' +
        'times and counts stay for statistics; the message reads "" and redacted: true). With hash_recipients their ' +
        'numbers (an MMS\'s recipients too), those of conversations quiet that long and those of the call log become ' +
        '"hmac:" + HMAC-SHA256 under a key of the account: the same number hashes alike, so counts per number still work. ' +
        'Neither can be undone; contacts and the opt-out list are kept.',
      body: RetentionBody,
      errors: ['validation_failed'],
      update: ({ auth, body }) => parts.retention.update(auth.accountId, { keep_text_days: body.keep_text_days, hash_recipients: body.hash_recipients ?? false }),
    }),
    retention.route({
      method: 'get',
      path: '/account/export',
      operationId: 'exportAccount',
      summary: 'Export the account\'s SMS, received SMS and conversations (JSON, or CSV with format=csv), streamed',
      description:
        'Streamed as it is read, a page at a time: any size of account. CSV: one row per record, the columns of a JSON ' +
        'record, a header row first; text a spreadsheet would run as a formula starts with an apostrophe.',
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
