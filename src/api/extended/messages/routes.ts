// Extended API v1: SMS, cancel and bulk sends.
import type { Static } from '@sinclair/typebox';
import { resourceRoutes } from '../../../http/resource-routes.ts';
import type { RequestAuth } from '../../../http/middleware/authenticate.ts';
import { idempotencyKey, withReplayHeader } from '../../../http/idempotent-request.ts';
import { presentChecked, presentRefused, presentSms, presentSmsDetail } from '../../../modules/messages/presenter.ts';
import { check, compile } from '../../../http/validation.ts';
import {
  BulkDryRun,
  BulkSmsBody,
  BulkSmsEnvelope,
  BulkSmsQuery,
  BulkSmsMessage,
  BulkSmsCreated,
  CreateSmsBody,
  SmsDetail,
  SmsIdParams,
  SmsList,
  SmsListQuery,
  SmsView,
} from '../../../modules/messages/schema.ts';
import { bulkBodyFromCsv, MAX_HEADER_COLUMNS, MAX_MESSAGE_CELL, MAX_OTHER_CELL } from './bulk-csv.ts';
import { BULK_PER_ACCOUNT, BulkGate } from './bulk-gate.ts';
import { mapInSlices } from '../../../modules/messages/slices.ts';
import type { MessageService, NewSms, RefusedRow } from '../../../modules/messages/service.ts';
import type { Database } from '../../../storage/database.ts';
import { cancelSms, type CancelSmsParts } from '../../../use-cases/cancel-sms.ts';
import { createSms, type CreateSmsParts } from '../../../use-cases/create-sms.ts';
import { fromExtendedStatus, statusesNamed } from '../../../modules/messages/status.ts';
import { labelsMatching } from '../../../modules/messages/legacy-status-codes.ts';
import { specialSmsRoutes } from './special-routes.ts';
import { sendOneSms } from './send-one.ts';
import { sendOptionsOf, wayInOf } from './send-options.ts';

const validateBulkMessage = compile(BulkSmsMessage, 'body');

/**
 * A search of the list: text, a status by its name here or by its legacy label. A pending SMS
 * waiting for another attempt is pending here and processing in the legacy family, so either
 * word finds it; "waiting" finds only those on their first attempt, as the legacy list does.
 */
function searchOf(text: string) {
  const labels = labelsMatching(text);
  const named = statusesNamed(text);
  return { text, statuses: [...new Set([...labels.statuses, ...named])], retrying: labels.retrying || named.includes('pending') };
}

/** Bulk bodies may be larger than BODY_LIMIT: 1,000 messages of 170 characters. */
const BULK_BODY_LIMIT = 2 * 1024 * 1024;

/** The messages, and the use cases of a send (once per Idempotency-Key) and a cancel (delivery ends the SMS). */
export type MessageRouteParts = CreateSmsParts & CancelSmsParts & { db: Database; messages: MessageService };

export function messageRoutes(parts: MessageRouteParts) {
  const { messages } = parts;
  const bulkGate = new BulkGate();
  const sms = resourceRoutes({
    tag: 'SMS',
    read: 'sms:read',
    write: 'sms:send',
    params: SmsIdParams,
    missing: ['invalid_id', 'sms_not_found'],
    one: { description: 'the SMS', schema: SmsView },
    present: presentSms,
  });
  return [
    // Encrypted and data SMS: declared before /sms/:id... so that nothing reads their paths as an id.
    ...specialSmsRoutes(parts, sms),
    sms.route({
      method: 'post',
      path: '/sms',
      operationId: 'createSms',
      idempotent: true,
      summary: 'Send an SMS',
      description:
        'Answers 201 once the SMS is stored (status pending). Without device_id the SMS joins the account\'s pool and ' +
        'the first online device with room takes it (README "Delivery"); with device_id only that device sends it. send_at ' +
        'schedules it, valid_until or ttl make it expire (failed_send, reason expired) unless a phone took it by then, priority ' +
        'orders the queue, category says what it is for the account\'s routes (docs/routes.md). With no_store true nothing is stored, and the request is refused with 503 when no online device ' +
        'has room now. A recipient on the account\'s suppression list (it sent STOP) is refused with 422 recipient_opted_out, ' +
        'unless the API key holds sms:send_transactional (docs/opt-out.md). An Idempotency-Key header makes a retry replay the first response (header Idempotent-Replayed: true).',
      body: CreateSmsBody,
      responses: { 201: { description: 'the SMS, status pending', schema: SmsView } },
      errors: [
        'validation_failed',
        'message_too_long',
        'invalid_phone',
        'device_not_found',
        'device_cannot_send',
        'idempotency_key_reused',
        'no_device_available',
        'recipient_opted_out',
        'unknown_callback',
      ],
      async handle({ auth, body, ctx }) {
        return sendOneSms(parts, { auth, ctx, body }, 'POST /api/ext/v1/sms', () =>
          messages.prepare(auth.accountId, { ...toNewSms(body), transactional: sendsTransactional(auth), wayIn: wayInOf(auth) }),
        );
      },
    }),
    sms.route({
      method: 'post',
      path: '/sms/bulk',
      operationId: 'createSmsBulk',
      idempotent: true,
      summary: 'Send up to 1,000 SMS in one call',
      description:
        'Takes JSON {"messages": [...]} with the fields of POST /sms (no_store excepted), or text/csv with a header row ' +
        '(columns phone, message, and optionally device_id, send_at, valid_until, ttl, priority, category). Every message is checked ' +
        'first: if any is invalid the answer is 400 with a detail for each bad message (field messages.{index}...), and ' +
        'nothing is created. Otherwise all are created in one transaction and answered in the order given. Takes ' +
        'Idempotency-Key like POST /sms. A message to a number on the account\'s suppression list is a bad message ' +
        '(its detail says recipient_opted_out; the numbers are looked up once for the whole call). Bodies up to 2 MiB. ' +
        'With ?partial=true the valid messages are created and the bad ones left out: the answer is 201 with the created SMS ' +
        'in data and, in errors, each bad row\'s index, recipient, error code and problems (400 as above when no message is valid); ' +
        'a replay with the same Idempotency-Key answers the same and sends nothing again. With ?dry_run=true every message is checked the same way ' +
        'but nothing is created: the answer is 200 with one result per message, valid with the SMS as it would be sent ' +
        'or invalid with its errors, so a preview can show each row\'s problems (an Idempotency-Key is not recorded). ' +
        `A CSV is refused with 400 at the first cell past a limit no valid send comes near, naming its row and column: a header of more than ${MAX_HEADER_COLUMNS} columns, ` +
        `a message cell of more than ${MAX_MESSAGE_CELL} characters, any other cell of more than ${MAX_OTHER_CELL}. ` +
        `An account may have ${BULK_PER_ACCOUNT} bulk sends under way at once; another is answered 429 too_many_bulk_requests with Retry-After.`,
      body: BulkSmsEnvelope,
      documentedBody: BulkSmsBody,
      query: BulkSmsQuery,
      bodyLimitBytes: BULK_BODY_LIMIT,
      csv: bulkBodyFromCsv,
      admit: bulkGate.admit,
      responses: {
        200: { description: 'dry_run=true: each message\'s result, in order; nothing created', schema: BulkDryRun },
        201: { description: 'the created SMS, in order', schema: BulkSmsCreated },
      },
      errors: ['validation_failed', 'message_too_long', 'invalid_phone', 'device_not_found', 'device_cannot_send', 'idempotency_key_reused', 'payload_too_large', 'too_many_bulk_requests'],
      async handle({ auth, body, query, ctx }) {
        const transactional = sendsTransactional(auth);
        const read = (message: unknown): NewSms => ({ ...readBulkMessage(message), transactional, wayIn: wayInOf(auth) });
        if (query.dry_run) {
          const checked = await messages.checkMany(auth.accountId, body.messages, read);
          return { status: 200, body: { data: await mapInSlices(checked, presentChecked) } };
        }
        if (query.partial) {
          let refused: RefusedRow[] = [];
          const result = await createSms(
            parts,
            auth.accountId,
            // Another operation than the all-or-nothing send: a key used for one is refused for the other.
            { key: idempotencyKey(ctx), operation: 'POST /api/ext/v1/sms/bulk?partial=true', body },
            async () => {
              const checked = await messages.prepareValid(auth.accountId, body.messages, read);
              refused = checked.refused;
              return checked.valid.map((entry) => entry.prepared);
            },
            async (created) => ({
              status: 201,
              body: { data: await mapInSlices(created, presentSms), errors: refused.map((row) => presentRefused(row, recipientOf(body.messages[row.index]))) },
            }),
          );
          return withReplayHeader(result);
        }
        const result = await createSms(
          parts,
          auth.accountId,
          { key: idempotencyKey(ctx), operation: 'POST /api/ext/v1/sms/bulk', body },
          () => messages.prepareMany(auth.accountId, body.messages, read),
          async (created) => ({ status: 201, body: { data: await mapInSlices(created, presentSms) } }),
        );
        return withReplayHeader(result);
      },
    }),
    sms.act({
      method: 'post',
      path: '/sms/:id/cancel',
      operationId: 'cancelSms',
      summary: 'Cancel an SMS no phone has taken yet',
      description:
        '200 with the SMS, now failed_send with reason "cancelled", while no phone has acknowledged its task (cancelling ' +
        'again answers the same). 409 already_taken once a phone has taken it; 409 already_final when it ended otherwise ' +
        '(expired, device deleted).',
      answer: 'the cancelled SMS',
      errors: ['already_taken', 'already_final'],
      act: ({ auth, params }) => cancelSms(parts, parts.db, auth.accountId, params.id),
    }),
    sms.list({
      path: '/sms',
      operationId: 'listSms',
      summary: 'List stored SMS, newest first',
      query: SmsListQuery,
      answer: { description: 'a page of SMS', schema: SmsList },
      errors: ['invalid_phone'],
      list: ({ auth, query }, cursor) =>
        messages.list(
          auth.accountId,
          {
            ...(query.status ? { statuses: fromExtendedStatus(query.status) } : {}),
            ...(query.device_id ? { deviceId: query.device_id } : {}),
            ...(query.from ? { from: new Date(query.from) } : {}),
            ...(query.to ? { to: new Date(query.to) } : {}),
            ...(query.phone ? { phone: query.phone } : {}),
            ...(query.kind ? { kind: query.kind } : {}),
            ...(query.category ? { category: query.category } : {}),
            // An empty search is no search (as in the legacy list).
            ...(query.search ? { search: searchOf(query.search) } : {}),
          },
          query.limit,
          cursor,
        ),
    }),
    // Answered with its history, which no other route of an SMS shows: a route of its own.
    sms.route({
      method: 'get',
      path: '/sms/:id',
      operationId: 'getSms',
      summary: 'Read one SMS with its status history',
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

/**
 * Each bulk message is checked against the schema of POST /sms here, with the lookups, so that
 * one answer lists every bad message whatever is wrong with it.
 */
/** The phone a bulk row gave, whatever else is wrong with it. */
function recipientOf(message: unknown): unknown {
  return typeof message === 'object' && message !== null ? (message as { phone?: unknown }).phone : undefined;
}

function readBulkMessage(message: unknown): NewSms {
  check(validateBulkMessage, message, 'body');
  return toNewSms(message as Static<typeof BulkSmsMessage>);
}

function toNewSms(body: Omit<Static<typeof CreateSmsBody>, 'no_store'> & { no_store?: boolean }): NewSms {
  return { phone: body.phone, message: body.message, ...sendOptionsOf(body) };
}

/** A key holding sms:send_transactional sends past the suppression list; a panel session never does. */
export function sendsTransactional(auth: RequestAuth): boolean {
  return !auth.session && auth.permissions.has('sms:send_transactional');
}
