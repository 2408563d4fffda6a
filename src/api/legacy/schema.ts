import { Type } from '@sinclair/typebox';
import { MESSAGE_MAX_CHARACTERS } from '../../modules/messages/schema.ts';
import { LEGACY_LABELS } from '../../modules/messages/legacy-status-codes.ts';

const AnyId = (description: string) => Type.String({ maxLength: 64, description: `${description}: 24-hex object id (or a UUID)` });

// Legacy POST /sms/send
export const SendBody = Type.Object(
  {
    message: Type.String({ minLength: 1, 'x-maxCharacters': MESSAGE_MAX_CHARACTERS, description: 'at most 170 characters, as in the Extended API' }),
    phone_number: Type.String({ minLength: 1, maxLength: 64, description: 'recipient, international format' }),
    device_id: Type.Optional(Type.String({ maxLength: 64, description: 'only this device sends it; "" or absent: any device of the account' })),
    to_sim: Type.Optional(
      Type.Union([Type.Integer({ minimum: -2, maximum: 2 }), Type.Null()], {
        description: 'SIM slot 0-2 (-1 random, -2 the phone\'s default); absent or null: the device\'s settings decide',
      }),
    ),
    callback_id: Type.Optional(Type.String({ maxLength: 64, description: 'webhook that gets this SMS\'s events; "" or absent: every webhook with SMS events' })),
  },
  { additionalProperties: false },
);

export const SendReply = Type.Object({ id: Type.String({ description: '24-hex object id of the new SMS' }) });

export const SmsIdBody = Type.Object({ id: AnyId('the SMS') }, { additionalProperties: false });

/**
 * DELETE /sms/del takes the id from the query string or from a JSON body. Query strings of the
 * legacy family take parameters they do not know and ignore them: legacy clients add their own
 * (a cache-buster such as `_=1732541234`). Bodies stay strict, as the fields are listed.
 */
export const SmsIdQuery = Type.Object({ id: Type.Optional(AnyId('the SMS')) });
/** As the document shows it: the id is required, and the query string is where a generated client puts it. */
export const DocumentedSmsIdQuery = Type.Object({ id: AnyId('the SMS (or in a JSON body {"id": ...} instead)') });
export const OptionalSmsIdBody = Type.Object({ id: Type.Optional(AnyId('the SMS')) }, { additionalProperties: false });

// An SMS as the legacy family shows it.
export const LegacySms = Type.Object({
  id: Type.String(),
  message: Type.String(),
  status: Type.Integer({ minimum: 0, maximum: 5, description: '0 waiting, 1 processing, 2 sent, 3 send error, 4 delivered, 5 delivery error' }),
  callback_id: Type.String({ description: '"" when none' }),
  device_id: Type.String({ description: 'object id of the device the client named; "" when none was named' }),
  phone_number: Type.String(),
  message_status: Type.Union(LEGACY_LABELS.map((label) => Type.Literal(label))),
  time_create: Type.Integer({ description: 'creation time, Unix seconds' }),
  to_sim: Type.Union([Type.Integer(), Type.Null()], {
    description:
      'SIM slot that sent it, as the phone reported; until the phone reports it, the slot asked for at creation (-1 random, -2 the phone\'s default); ' +
      'null: no slot was asked for, the device\'s settings decide',
  }),
});

// Legacy GET /sms. Parameters it does not know are ignored (see SmsIdQuery).
export const ListQuery = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: 100, description: 'records per page, 1-100 (required)' }),
  offset: Type.Integer({
    minimum: 0,
    maximum: 10_000_000,
    default: 1,
    description:
      'page number counted from 1: offset 2 with limit 10 is records 11-20. 0 is the first page too (as is 1), for clients that ' +
      'start counting at 0; the pages after it are still counted from 1. Echoed as given',
  }),
  search: Type.Optional(
    Type.String({ maxLength: 200, description: 'case-insensitive substring of message, message_status or phone_number; % _ \\ are literal' }),
  ),
});

export const ListReply = Type.Object({
  pagination: Type.Object({
    total_records: Type.Integer({
      description:
        'SMS matching the search (all of the account\'s SMS without one); past LEGACY_COUNT_CAP a lower bound, as the header X-Total-Records-Exact says',
    }),
    limit: Type.Integer(),
    offset: Type.Integer(),
  }),
  sms_list: Type.Array(LegacySms),
});

// The field table names the key `id`, the samples `device_id`; both are taken.
export const DeviceRef = {
  device_id: Type.Optional(AnyId('the device')),
  id: Type.Optional(AnyId('the device (alias of device_id; with both, they must name the same device)')),
};
export const DeviceRefBody = Type.Object(DeviceRef, { additionalProperties: false });
const IsActive = Type.Optional(Type.Boolean({ description: 'true: the device may send SMS (can_send_sms)' }));
export const DeviceEditBody = Type.Object({ ...DeviceRef, is_active: IsActive }, { additionalProperties: false });

// As the document shows them: a device must be named, and device_id is the name a generated client
// uses (the route checks that one of the two is given itself, 400 when neither is).
const DocumentedDeviceRef = {
  device_id: AnyId('the device (required, unless the alias id names it)'),
  id: Type.Optional(AnyId('the device (alias of device_id; with both, they must name the same device)')),
};
export const DocumentedDeviceRefBody = Type.Object(DocumentedDeviceRef, { additionalProperties: false });
export const DocumentedDeviceEditBody = Type.Object({ ...DocumentedDeviceRef, is_active: IsActive }, { additionalProperties: false });

// A device as the legacy family shows it. No member is ever null (see presenter.ts).
export const LegacyDevice = Type.Object({
  device_id: Type.String(),
  device_battery_state: Type.Integer({
    minimum: -1,
    maximum: 100,
    description: 'battery charge, percent; -1 until the phone first reports it (never null)',
  }),
  device_name: Type.String(),
  is_active: Type.Boolean(),
  is_charging: Type.Boolean(),
  last_online_date: Type.String({
    format: 'date-time',
    description: 'last connection or activity, ISO 8601 UTC; 1970-01-01T00:00:00.000Z (the Unix epoch) when the device has never connected (never null)',
  }),
  device_name_type: Type.String(),
  low_battery_alert: Type.Boolean(),
  to_sim: Type.Integer({ minimum: -2, maximum: 2 }),
  sim_list: Type.Array(Type.Object({ slot_index: Type.Integer(), display_name: Type.String() })),
});
