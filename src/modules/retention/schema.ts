import { Type } from '@sinclair/typebox';
import { MAIL_TEXT_SOURCES } from '../mail/types.ts';

export const RetentionView = Type.Object(
  {
    keep_text_days: Type.Union([Type.Integer({ minimum: 1, maximum: 36500 }), Type.Null()], {
      description: 'what messages (sent and received SMS and MMS, their media, webhook deliveries) say is removed once older than this many days; null: kept for ever',
    }),
    hash_recipients: Type.Boolean({
      description: 'true: once its text is removed, a message\'s numbers (and those of a conversation quiet that long, and of calls that old) are kept only as "hmac:" + HMAC-SHA256 under a key of the account',
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
    record: Type.Union(['sms', 'incoming', 'conversation', 'contact', 'group', 'template', 'mail_sender'].map((kind) => Type.Literal(kind))),
    id: Type.Union([Type.String({ format: 'uuid' }), Type.Null()], { description: 'null for a mail sender: one per number, its phone names it' }),
    name: Type.Union([Type.String(), Type.Null()], { description: 'a contact\'s, group\'s or template\'s; null for an SMS, a received SMS and a conversation' }),
    phone: Type.String(),
    message: Type.String({ description: 'a sent or received SMS\'s text, empty once redacted; a template\'s text; empty for a conversation, contact or group' }),
    status: Type.Union([Type.String(), Type.Null()], { description: 'a sent SMS\'s Extended status; null for every other record' }),
    device_id: Type.Union([Type.String({ format: 'uuid' }), Type.Null()], {
      description:
        'the phone of a sent or received SMS; null for a sent SMS no phone has claimed yet (as GET /sms/{id} shows it), ' +
        'and for a conversation, contact, group or template',
    }),
    sim_slot: Type.Union([Type.Integer(), Type.Null()], {
      description:
        'a sent SMS\'s slot asked for at creation (null when none was: the device\'s settings decide), or the slot a received SMS ' +
        'arrived on (null when the phone did not report one); null for a conversation, contact, group or template',
    }),
    unread_count: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], { description: 'a conversation\'s; null for every other record' }),
    created_at: Type.String({ format: 'date-time', description: 'for a mail sender: when it last sent an SMS to the number by email' }),
    redacted_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description: 'when the account\'s retention removed a sent or received SMS\'s text; null until it has, and for every other record',
    }),
    tags: Type.Union([Type.Array(Type.String()), Type.Null()], { description: 'a contact\'s; null for every other record' }),
    fields: Type.Union([Type.Record(Type.String(), Type.String()), Type.Null()], { description: 'a contact\'s; null for every other record' }),
    members: Type.Union([Type.Array(Type.String({ format: 'uuid' })), Type.Null()], { description: 'a group\'s contact ids; null for every other record' }),
    email: Type.Union([Type.String(), Type.Null()], {
      description: 'a mail sender\'s address: who last sent an SMS to the number by email (SMTP), where replies go; null for every other record',
    }),
  },
  { additionalProperties: false },
);

export const ExportDocument = Type.Object(
  {
    account_id: Type.String({ format: 'uuid' }),
    exported_at: Type.String({ format: 'date-time' }),
    retention: Type.Object({
      keep_text_days: Type.Union([Type.Integer(), Type.Null()], {
        description: 'as GET /account/retention: message text older than this many days is removed; null when no limit is set (text is kept for ever)',
      }),
      hash_recipients: Type.Boolean(),
    }),
    mail: Type.Object({
      text: Type.Union(MAIL_TEXT_SOURCES.map((source) => Type.Literal(source)), { description: 'as GET /account/mail: what of a mail sent over SMTP becomes the SMS text' }),
      chosen: Type.Boolean({ description: 'false: the account follows the gateway\'s SMTP_TEXT' }),
    }),
    records: Type.Array(ExportRecord, { description: 'sent SMS oldest first, then received SMS oldest first, then conversations, contacts, groups, templates and mail senders' }),
  },
  { additionalProperties: false },
);
