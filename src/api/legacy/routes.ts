// The legacy API family: the same services and rows as the
// Extended API, shown with 24-hex object ids and numeric statuses. Paths are at the server root.
import { Type } from '@sinclair/typebox';
import { defineRoute } from '../../http/route.ts';
import { invalidField } from '../../common/errors.ts';
import type { DeviceService } from '../../modules/devices/service.ts';
import type { Database } from '../../storage/database.ts';
import { deleteDeviceByAnyId, type DeleteDeviceParts } from '../../use-cases/delete-device.ts';
import { createSms, type CreateSmsParts } from '../../use-cases/create-sms.ts';
import { updateDeviceSettings, type UpdateDeviceSettingsParts } from '../../use-cases/update-device-settings.ts';
import type { MessageService } from '../../modules/messages/service.ts';
import { sendsTransactional } from '../extended/messages/routes.ts';
import { idempotencyKey, withReplayHeader } from '../../http/idempotent-request.ts';
import { oneIdOf, parseAnyId } from './ids.ts';
import { presentLegacyDevice, presentLegacySms } from './presenter.ts';
import {
  DeviceEditBody,
  DeviceRefBody,
  DocumentedDeviceEditBody,
  DocumentedDeviceRefBody,
  DocumentedSmsIdQuery,
  LegacyDevice,
  LegacySms,
  ListQuery,
  ListReply,
  OptionalSmsIdBody,
  SendBody,
  SendReply,
  SmsIdBody,
  SmsIdQuery,
} from './schema.ts';
import { labelsMatching } from '../../modules/messages/legacy-status-codes.ts';

const TAG = 'Legacy API';
/** On GET /sms: whether total_records counts every match ("true") or is a lower bound ("false"). */
export const TOTAL_EXACT_HEADER = 'X-Total-Records-Exact';

export interface LegacyOptions {
  /** GET /sms counts a search's matches for total_records up to this many, or all of them ('off') (LEGACY_COUNT_CAP). */
  countCap: number | 'off';
}

/** The messages and devices, and the use cases of the legacy send, device edit and device delete. */
export type LegacyParts = CreateSmsParts & DeleteDeviceParts & UpdateDeviceSettingsParts & { db: Database; messages: MessageService; devices: DeviceService };

export function legacyRoutes(parts: LegacyParts, options: LegacyOptions) {
  const { messages, devices } = parts;
  /** `device_id`, or `id` as the field table names it; both only when they agree. */
  const deviceIdIn = (body: { device_id?: string | undefined; id?: string | undefined }) => {
    // An empty device_id does not hide an id given under the alias.
    const named = oneIdOf([
      { field: 'device_id', in: 'body', value: body.device_id },
      { field: 'id', in: 'body', value: body.id },
    ]);
    if (!named) throw invalidField('device_id', 'device_id is required', 'validation_failed', 'body');
    return parseAnyId(named.value!, named.field, named.in);
  };
  const deviceOf = (accountId: string, body: { device_id?: string | undefined; id?: string | undefined }) =>
    devices.getByAnyId(accountId, deviceIdIn(body));

  return [
    defineRoute({
      method: 'post',
      path: '/sms/send',
      operationId: 'legacySendSms',
      idempotent: true,
      summary: 'Send an SMS (legacy)',
      description:
        'Answers 200 with the object id of the stored SMS. With device_id only that device sends it; without, any ' +
        'online device of the account. callback_id must name a webhook of the account.',
      tag: TAG,
      permission: 'sms:send',
      body: SendBody,
      responses: { 200: { description: 'the new SMS\'s object id', schema: SendReply } },
      errors: ['message_too_long', 'invalid_phone', 'invalid_id', 'unknown_callback', 'device_not_found', 'device_cannot_send', 'idempotency_key_reused', 'recipient_opted_out'],
      async handle({ auth, body, ctx }) {
        const result = await createSms(
          parts,
          auth.accountId,
          { key: idempotencyKey(ctx), operation: 'POST /sms/send', body },
          async () => {
            const device = body.device_id ? await deviceOf(auth.accountId, { device_id: body.device_id }) : undefined;
            const prepared = await messages.prepare(auth.accountId, {
              phone: body.phone_number,
              phoneField: 'phone_number',
              message: body.message,
              deviceId: device?.id,
              simSlot: body.to_sim ?? null,
              callbackId: body.callback_id || null,
              transactional: sendsTransactional(auth),
              wayIn: 'legacy',
            });
            return [prepared];
          },
          ([sms]) => ({ status: 200, body: { id: sms!.object_id } }),
        );
        return withReplayHeader(result);
      },
    }),
    defineRoute({
      method: 'post',
      path: '/sms/get',
      operationId: 'legacyGetSms',
      summary: 'Read one SMS (legacy)',
      tag: TAG,
      permission: 'sms:read',
      body: SmsIdBody,
      responses: { 200: { description: 'the SMS', schema: LegacySms } },
      errors: ['invalid_id', 'sms_not_found'],
      async handle({ auth, body }) {
        const sms = await messages.getByAnyId(auth.accountId, parseAnyId(body.id, 'id'));
        return { status: 200, body: presentLegacySms(sms) };
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/sms/del',
      operationId: 'legacyDeleteSms',
      summary: 'Delete one SMS record (legacy)',
      description:
        'The id goes in the query string (?id=...) or in a JSON body ({"id": "..."}); in both, it must be the same id (else 400). ' +
        'Other query parameters are ignored; other body fields are a 400. ' +
        'A phone that already took the task may still send it. Deleting an SMS the account already deleted answers 204 again ' +
        '(a retry after a timeout is not an error); an id the account never had is a 404.',
      tag: TAG,
      permission: 'sms:delete',
      query: SmsIdQuery,
      documentedQuery: DocumentedSmsIdQuery,
      body: OptionalSmsIdBody,
      bodyOptional: true,
      responses: { 204: { description: 'deleted, by this request or an earlier one of the account' } },
      errors: ['invalid_id', 'sms_not_found'],
      async handle({ auth, query, body }) {
        const named = oneIdOf([
          { field: 'id', in: 'query', value: query.id },
          { field: 'id', in: 'body', value: body.id },
        ]);
        // Missing from both: told as the query string's, where the docs name it first.
        if (!named) throw invalidField('id', 'id is required, in the query string or the JSON body', 'validation_failed', 'query');
        await messages.delete(auth.accountId, parseAnyId(named.value!, 'id', named.in));
        return { status: 204 };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/sms',
      operationId: 'legacyListSms',
      summary: 'List and search SMS (legacy)',
      description:
        'Newest first. offset is the page number counted from 1 ("default 1, meaning the first page"): offset 2 with ' +
        'limit 10 returns records 11-20. offset 0 is the first page as well, and is echoed as 0. search matches message, ' +
        'message_status and phone_number as a case-insensitive substring. total_records counts the SMS that match. Without ' +
        'a search it is always exact (all of the account\'s SMS). With one it is exact up to LEGACY_COUNT_CAP matches ' +
        '(2,000 by default; "off" counts them all); past it, it is a lower bound (the cap, or the matches up to the end of ' +
        'this page and one more, whichever is larger) and the header X-Total-Records-Exact is false. ' +
        'Query parameters other than these are ignored (a cache-buster such as _=1732541234).',
      tag: TAG,
      permission: 'sms:read',
      query: ListQuery,
      responses: {
        200: {
          description: 'a page of SMS',
          schema: ListReply,
          headers: {
            [TOTAL_EXACT_HEADER]: {
              description: 'true: total_records is the number of matching SMS; false: the search matches more than LEGACY_COUNT_CAP, and total_records is a lower bound',
              schema: Type.Union([Type.Literal('true'), Type.Literal('false')]),
            },
          },
        },
      },
      async handle({ auth, query }) {
        // An empty search is no search.
        const search = query.search ? { text: query.search, ...labelsMatching(query.search) } : {};
        // Page 0 is the first page too: clients that count from 0 ask for it first.
        const page = Math.max(query.offset, 1);
        const { rows, total } = await messages.search(auth.accountId, search, {
          limit: query.limit,
          offset: (page - 1) * query.limit,
          countCap: options.countCap === 'off' ? undefined : options.countCap,
        });
        // The spec's shape stays as it is; whether the count is exact travels beside it.
        return {
          status: 200,
          headers: { [TOTAL_EXACT_HEADER]: String(total.exact) },
          body: { pagination: { total_records: total.count, limit: query.limit, offset: query.offset }, sms_list: rows.map(presentLegacySms) },
        };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/devices/get/info',
      operationId: 'legacyGetDevice',
      summary: 'Read one device (legacy)',
      tag: TAG,
      permission: 'devices:read',
      body: DeviceRefBody,
      documentedBody: DocumentedDeviceRefBody,
      responses: { 200: { description: 'the device', schema: LegacyDevice } },
      errors: ['invalid_id', 'device_not_found'],
      async handle({ auth, body }) {
        return { status: 200, body: presentLegacyDevice(await deviceOf(auth.accountId, body)) };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/devices/edit',
      operationId: 'legacyEditDevice',
      summary: 'Allow or forbid sending through a device (legacy)',
      description:
        'is_active is can_send_sms. Without is_active nothing changes. is_active false fails nothing: tasks its phone has not acknowledged are taken back (revoked on the phone), those named for it waiting for it (status 0) until is_active is true again, the others going to another device; what its phone acknowledged stays its own.',
      tag: TAG,
      permission: 'devices:settings',
      body: DeviceEditBody,
      documentedBody: DocumentedDeviceEditBody,
      responses: { 204: { description: 'done' } },
      errors: ['invalid_id', 'device_not_found'],
      async handle({ auth, body }) {
        const device = await deviceOf(auth.accountId, body);
        if (body.is_active !== undefined) await updateDeviceSettings(parts, parts.db, auth.accountId, device.id, { can_send_sms: body.is_active });
        return { status: 204 };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/devices/del',
      operationId: 'legacyDeleteDevice',
      summary: 'Delete a device (legacy)',
      description:
        'Revokes its credentials and closes its connection. SMS its phone has not acknowledged go to another device, or fail (status 3) when the client had named this one. SMS its phone took end too: status 3 if not reported sent, 5 if sent (its delivery can no longer be confirmed). The SMS keep its device_id; the device answers 404 from now on. ' +
        'Deleting a device the account already deleted answers 204 again and changes nothing (a retry after a timeout is not an ' +
        'error); a device that was never the account\'s is a 404.',
      tag: TAG,
      permission: 'devices:write',
      body: DeviceRefBody,
      documentedBody: DocumentedDeviceRefBody,
      responses: { 204: { description: 'deleted, by this request or an earlier one of the account' } },
      errors: ['invalid_id', 'device_not_found'],
      async handle({ auth, body }) {
        await deleteDeviceByAnyId(parts, parts.db, auth.accountId, deviceIdIn(body));
        return { status: 204 };
      },
    }),
  ];
}
