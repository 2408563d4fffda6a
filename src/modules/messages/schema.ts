import { Type } from '@sinclair/typebox';
import { PageOf, PageQuery } from '../../http/pagination.ts';
import { EXTENDED_STATUSES, SMS_STATUSES } from './status.ts';

export const MESSAGE_MAX_CHARACTERS = 170;

const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601, UTC' });
const ExtendedStatus = Type.Union(EXTENDED_STATUSES.map((status) => Type.Literal(status)), {
  description: 'spec 3.1; a task the device has taken but not yet sent still shows as pending',
});

// spec 4.1: POST /api/ext/v1/sms
export const CreateSmsBody = Type.Object(
  {
    phone: Type.String({ minLength: 1, maxLength: 64, description: 'recipient, international format such as +79161234567' }),
    message: Type.String({
      minLength: 1,
      'x-maxCharacters': MESSAGE_MAX_CHARACTERS,
      description: 'at most 170 characters, counted as a person counts them (an emoji with a skin tone is one)',
    }),
    device_id: Type.Optional(Type.String({ format: 'uuid', description: 'send through this device; omitted: the gateway chooses' })),
    no_store: Type.Optional(
      Type.Boolean({
        default: false,
        description: 'true: keep no record. Answered 503 when no online device can take the SMS right now.',
      }),
    ),
  },
  { additionalProperties: false },
);

// spec 2.2
export const SmsView = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    device_id: Type.Union([Type.String({ format: 'uuid' }), Type.Null()], {
      description: 'assigned device; null while the SMS waits for an online device',
    }),
    phone: Type.String({ description: 'E.164' }),
    message: Type.String(),
    status: ExtendedStatus,
    sent_at: Type.String({ format: 'date-time', description: 'when the SMS was created (spec 2.2)' }),
    updated_at: Timestamp,
  },
  { additionalProperties: false },
);

export const SmsHistoryEntry = Type.Object({
  status: ExtendedStatus,
  internal_status: Type.Union(SMS_STATUSES.map((status) => Type.Literal(status)), {
    description: 'finer-grained: shows processing, which the Extended status folds into pending',
  }),
  source: Type.Union([Type.Literal('api'), Type.Literal('device'), Type.Literal('system')]),
  reason: Type.Union([Type.String(), Type.Null()]),
  at: Timestamp,
});

export const SmsDetail = Type.Composite([SmsView, Type.Object({ history: Type.Array(SmsHistoryEntry) })], {
  additionalProperties: false,
});

export const SmsIdParams = Type.Object({ id: Type.String({ format: 'uuid', description: 'SMS id (UUID)' }) });

export const SmsListQuery = Type.Object(
  {
    ...PageQuery,
    status: Type.Optional(ExtendedStatus),
    device_id: Type.Optional(Type.String({ format: 'uuid' })),
    from: Type.Optional(Type.String({ format: 'date-time', description: 'created at or after' })),
    to: Type.Optional(Type.String({ format: 'date-time', description: 'created before' })),
  },
  { additionalProperties: false },
);

export const SmsList = PageOf(SmsView);
