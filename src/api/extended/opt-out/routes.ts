// Extended API v1: the account's suppression list (numbers that opted out) and its opt-out settings.
import { Readable } from 'node:stream';
import { resourceRoutes } from '../../../http/resource-routes.ts';
import { importLines, phonesOfCsv, presentSuppression, SUPPRESSION_CSV_HEADER, suppressionCsvLine } from '../../../modules/opt-out/presenter.ts';
import {
  AddSuppressionBody,
  IMPORT_BODY_LIMIT,
  ImportBody,
  ImportResultView,
  OptOutSettingsPatch,
  OptOutSettingsView,
  SuppressionList,
  SuppressionListQuery,
  SuppressionPhoneParams,
  SuppressionView,
} from '../../../modules/opt-out/schema.ts';
import type { OptOutService } from '../../../modules/opt-out/service.ts';

export function optOutRoutes(optOut: OptOutService) {
  const suppression = resourceRoutes({
    tag: 'Opt-out',
    read: 'suppressions:read',
    write: 'suppressions:write',
    params: SuppressionPhoneParams,
    missing: ['invalid_phone', 'suppression_not_found'],
    one: { description: 'the suppressed number', schema: SuppressionView },
    present: presentSuppression,
  });
  return [
    suppression.list({
      path: '/suppressions',
      operationId: 'listSuppressions',
      summary: 'List the numbers the account may not send to, newest first',
      description: 'A number is listed when it sends a stop keyword to one of the account\'s phones, or is added here or by an import (docs/opt-out.md).',
      query: SuppressionListQuery,
      answer: { description: 'a page of suppressed numbers', schema: SuppressionList },
      list: ({ auth, query }, cursor) => optOut.list(auth.accountId, query.limit, cursor, query.phone || undefined),
    }),
    suppression.route({
      method: 'post',
      path: '/suppressions',
      operationId: 'addSuppression',
      summary: 'Put a number on the suppression list',
      description: '201 when added, 200 with the existing entry when it was listed already. Sends to it are refused from now on (422 recipient_opted_out).',
      body: AddSuppressionBody,
      responses: {
        200: { description: 'the number was listed already', schema: SuppressionView },
        201: { description: 'the number is now listed', schema: SuppressionView },
      },
      errors: ['invalid_phone'],
      async handle({ auth, body }) {
        const { row, created } = await optOut.add(auth.accountId, body.phone);
        return { status: created ? 201 : 200, body: presentSuppression(row) };
      },
    }),
    suppression.remove({
      path: '/suppressions/:phone',
      operationId: 'removeSuppression',
      summary: 'Take a number off the suppression list',
      description: 'The number in international format, URL-encoded (+ as %2B). Only with the recipient\'s consent: it sent STOP.',
      done: 'removed',
      remove: ({ auth, params }) => optOut.remove(auth.accountId, params.phone),
    }),
    suppression.route({
      method: 'post',
      path: '/suppressions/import',
      operationId: 'importSuppressions',
      summary: 'Add many numbers at once (JSON or CSV)',
      description:
        'JSON {"phones": [...]} or text/csv with one number a line in the first column (an optional header "phone"). ' +
        'Valid numbers are added in one transaction; invalid entries are reported and skipped. Up to 100,000 numbers, 4 MiB.',
      body: ImportBody,
      csv: phonesOfCsv,
      bodyLimitBytes: IMPORT_BODY_LIMIT,
      responses: { 200: { description: 'what was added', schema: ImportResultView } },
      errors: ['payload_too_large'],
      async handle({ auth, body }) {
        const lines = importLines(body.phones);
        const result = await optOut.import(auth.accountId, body.phones.map((value, index) => ({ line: lines[index]!, value })));
        return { status: 200, body: result };
      },
    }),
    suppression.route({
      method: 'get',
      path: '/suppressions/export',
      operationId: 'exportSuppressions',
      summary: 'Every suppressed number as CSV (phone,source,keyword,created_at), oldest first',
      responses: { 200: { description: 'the list as CSV', contentType: 'text/csv' } },
      async handle({ auth }) {
        const rows = optOut.all(auth.accountId);
        const lines = async function* () {
          yield SUPPRESSION_CSV_HEADER;
          for await (const chunk of rows) yield chunk.map(suppressionCsvLine).join('');
        };
        return {
          status: 200,
          body: Readable.from(lines()),
          headers: { 'Content-Type': 'text/csv; charset=utf-8', 'Content-Disposition': 'attachment; filename="suppressions.csv"' },
        };
      },
    }),
    // The account's opt-out settings: one per account, named by no id, read and changed with the
    // permissions its suppressions take.
    suppression.route({
      method: 'get',
      path: '/account/opt-out',
      operationId: 'getOptOutSettings',
      summary: 'The account\'s opt-out settings',
      responses: { 200: { description: 'the settings', schema: OptOutSettingsView } },
      async handle({ auth }) {
        return { status: 200, body: await optOut.settings(auth.accountId) };
      },
    }),
    suppression.route({
      method: 'patch',
      path: '/account/opt-out',
      operationId: 'updateOptOutSettings',
      summary: 'Change the account\'s opt-out settings; fields not sent stay as they are',
      body: OptOutSettingsPatch,
      responses: { 200: { description: 'the settings now', schema: OptOutSettingsView } },
      async handle({ auth, body }) {
        return { status: 200, body: await optOut.updateSettings(auth.accountId, body) };
      },
    }),
  ];
}
