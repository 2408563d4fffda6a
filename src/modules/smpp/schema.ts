import { Type } from '@sinclair/typebox';

const Timestamp = Type.String({ format: 'date-time' });

const DefaultDataCoding = Type.Union([Type.Literal('gsm7'), Type.Literal('ascii'), Type.Literal('latin1')], {
  description: 'what the ESME means by data_coding 0, the SMSC default alphabet: gsm7 (GSM 03.38, one septet an octet; the default), ascii (IA5) or latin1 (ISO-8859-1); read in what it submits and written in deliver_sm',
});

export const CreateCredentialBody = Type.Object(
  {
    system_id: Type.Optional(
      Type.String({ pattern: '^[A-Za-z0-9_.-]{1,15}$', description: 'what the ESME binds as: 1-15 letters, digits, dots, underscores or dashes; omitted: one is made up' }),
    ),
    name: Type.Optional(Type.String({ maxLength: 100, description: 'a label for people, such as the system that binds with it' })),
    device_ids: Type.Optional(
      Type.Array(Type.String({ format: 'uuid' }), { maxItems: 100, uniqueItems: true, description: 'devices its SMS may go out through; omitted or empty: any of the account\'s' }),
    ),
    throughput_per_second: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000, description: 'submit_sm accepted per second; past it, ESME_RTHROTTLED (default 10)' })),
    window_size: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000, description: 'PDUs either side may have unacknowledged at once (default 10)' })),
    default_data_coding: Type.Optional(DefaultDataCoding),
  },
  { additionalProperties: false },
);

export const UpdateCredentialBody = Type.Object(
  {
    name: Type.Optional(Type.String({ maxLength: 100, description: 'a label for people' })),
    default_data_coding: Type.Optional(DefaultDataCoding),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const CredentialView = Type.Object({
  id: Type.String({ format: 'uuid' }),
  system_id: Type.String(),
  name: Type.String(),
  device_ids: Type.Array(Type.String()),
  throughput_per_second: Type.Integer(),
  window_size: Type.Integer(),
  default_data_coding: DefaultDataCoding,
  created_at: Timestamp,
  revoked_at: Type.Union([Timestamp, Type.Null()], { description: 'null while the credential works' }),
});

export const CredentialWithPassword = Type.Object({
  ...CredentialView.properties,
  password: Type.String({ description: 'the 8-character password (SMPP\'s limit), shown this once; only its hash is stored' }),
});

export const CredentialList = Type.Object({ data: Type.Array(CredentialView) });

export const CredentialIdParams = Type.Object({ id: Type.String({ format: 'uuid' }) });
