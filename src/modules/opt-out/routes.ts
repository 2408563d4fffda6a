// Extended API v1: the account's suppression list (numbers that opted out) and its opt-out settings.
import { Readable } from 'node:stream';
import { defineRoute } from '../../http/route.ts';
import { deleteOneRoute, listPageRoute, readOneRoute, updateOneRoute } from '../../http/resource-routes.ts';
import { phonesOfCsv, presentSuppression, SUPPRESSION_CSV_HEADER, suppressionCsvLine } from './presenter.ts';
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
} from './schema.ts';
import type { OptOutService } from './service.ts';

const TAG = 'Opt-out';

export function optOutRoutes(optOut: OptOutService) {
  return [
    listPageRoute({
      path: '/suppressions',
      operationId: 'listSuppressions',
      summary: 'List the numbers the account may not send to, newest first',
      description: 'A number is listed when it sends a stop keyword to one of the account\'s phones, or is added here or by an import (docs/opt-out.md).',
      tag: TAG,
      permission: 'suppressions:read',
      query: SuppressionListQuery,
      answer: { description: 'a page of suppressed numbers', schema: SuppressionList },
      list: ({ auth, query }, cursor) => optOut.list(auth.accountId, query.limit, cursor, query.phone || undefined),
      present: presentSuppression,
    }),
    defineRoute({
      method: 'post',
      path: '/suppressions',
      operationId: 'addSuppression',
      summary: 'Put a number on the suppression list',
      description: '201 when added, 200 with the existing entry when it was listed already. Sends to it are refused from now on (422 recipient_opted_out).',
      tag: TAG,
      permission: 'suppressions:write',
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
    deleteOneRoute({
      path: '/suppressions/:phone',
      operationId: 'removeSuppression',
      summary: 'Take a number off the suppression list',
      description: 'The number in international format, URL-encoded (+ as %2B). Only with the recipient\'s consent: it sent STOP.',
      tag: TAG,
      permission: 'suppressions:write',
      params: SuppressionPhoneParams,
      done: 'removed',
      errors: ['invalid_phone', 'suppression_not_found'],
      remove: ({ auth, params }) => optOut.remove(auth.accountId, params.phone),
    }),
    defineRoute({
      method: 'post',
      path: '/suppressions/import',
      operationId: 'importSuppressions',
      summary: 'Add many numbers at once (JSON or CSV)',
      description:
        'JSON {"phones": [...]} or text/csv with one number a line in the first column (an optional header "phone"). ' +
        'Valid numbers are added in one transaction; invalid entries are reported and skipped. Up to 100,000 numbers, 4 MiB.',
      tag: TAG,
      permission: 'suppressions:write',
      body: ImportBody,
      csv: phonesOfCsv,
      bodyLimitBytes: IMPORT_BODY_LIMIT,
      responses: { 200: { description: 'what was added', schema: ImportResultView } },
      errors: ['payload_too_large'],
      async handle({ auth, body }) {
        const result = await optOut.import(auth.accountId, body.phones.map((value, index) => ({ line: index + 1, value })));
        return { status: 200, body: result };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/suppressions/export',
      operationId: 'exportSuppressions',
      summary: 'Every suppressed number as CSV (phone,source,keyword,created_at), oldest first',
      tag: TAG,
      permission: 'suppressions:read',
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
    readOneRoute({
      path: '/account/opt-out',
      operationId: 'getOptOutSettings',
      summary: 'The account\'s opt-out settings',
      tag: TAG,
      permission: 'suppressions:read',
      answer: { description: 'the settings', schema: OptOutSettingsView },
      read: ({ auth }) => optOut.settings(auth.accountId),
    }),
    updateOneRoute({
      path: '/account/opt-out',
      operationId: 'updateOptOutSettings',
      summary: 'Change the account\'s opt-out settings; fields not sent stay as they are',
      tag: TAG,
      permission: 'suppressions:write',
      body: OptOutSettingsPatch,
      answer: { description: 'the settings now', schema: OptOutSettingsView },
      update: ({ auth, body }) => optOut.updateSettings(auth.accountId, body),
    }),
  ];
}
