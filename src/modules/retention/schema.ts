import { Type } from '@sinclair/typebox';

export const RetentionView = Type.Object(
  {
    keep_text_days: Type.Union([Type.Integer({ minimum: 1, maximum: 36500 }), Type.Null()], {
      description: 'message text (sent and received) older than this many days is removed; null: kept for ever',
    }),
    hash_recipients: Type.Boolean({
      description: 'true: once its text is removed, a message\'s number (and a conversation quiet that long) is kept only as "hmac:" + HMAC-SHA256 under a key of the account',
    }),
    updated_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'null: never set' }),
  },
  { additionalProperties: false },
);

export const RetentionBody = Type.Object(
  {
    keep_text_days: Type.Union([Type.Integer({ minimum: 1, maximum: 36500 }), Type.Null()], { description: '1-36500 days; null: keep for ever' }),
    hash_recipients: Type.Optional(Type.Boolean({ default: false })),
  },
  { additionalProperties: false },
);

export const ExportQuery = Type.Object(
  { format: Type.Optional(Type.Union([Type.Literal('json'), Type.Literal('csv')], { default: 'json', description: 'json (default) or csv' })) },
  { additionalProperties: false },
);

const ExportRecord = Type.Object(
  {
    record: Type.Union(['sms', 'incoming', 'conversation', 'contact', 'group', 'template'].map((kind) => Type.Literal(kind))),
    id: Type.String({ format: 'uuid' }),
    name: Type.Union([Type.String(), Type.Null()], { description: 'a contact\'s, group\'s or template\'s' }),
    phone: Type.String(),
    message: Type.String({ description: 'empty once redacted, and for a conversation' }),
    status: Type.Union([Type.String(), Type.Null()], { description: 'a sent SMS\'s Extended status' }),
    device_id: Type.Union([Type.String({ format: 'uuid' }), Type.Null()]),
    sim_slot: Type.Union([Type.Integer(), Type.Null()]),
    unread_count: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], { description: 'a conversation\'s' }),
    created_at: Type.String({ format: 'date-time' }),
    redacted_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    tags: Type.Union([Type.Array(Type.String()), Type.Null()], { description: 'a contact\'s' }),
    fields: Type.Union([Type.Record(Type.String(), Type.String()), Type.Null()], { description: 'a contact\'s' }),
    members: Type.Union([Type.Array(Type.String({ format: 'uuid' })), Type.Null()], { description: 'a group\'s contact ids' }),
  },
  { additionalProperties: false },
);

export const ExportDocument = Type.Object(
  {
    account_id: Type.String({ format: 'uuid' }),
    exported_at: Type.String({ format: 'date-time' }),
    retention: Type.Object({ keep_text_days: Type.Union([Type.Integer(), Type.Null()]), hash_recipients: Type.Boolean() }),
    records: Type.Array(ExportRecord, { description: 'sent SMS oldest first, then received SMS oldest first, then conversations, contacts, groups and templates' }),
  },
  { additionalProperties: false },
);
