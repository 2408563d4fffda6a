import { Type } from '@sinclair/typebox';
import { PageOf, PageQuery } from '../../common/page-schema.ts';
import { RefusedRow } from '../messages/schema.ts';

const Timestamp = Type.String({ format: 'date-time' });
const Uuid = Type.String({ format: 'uuid' });
const Tag = Type.String({ minLength: 1, maxLength: 32, pattern: '^[A-Za-z0-9_.-]+$', description: '1-32 letters, digits, _ . -' });
const Tags = Type.Array(Tag, { maxItems: 20, description: 'at most 20' });
const Fields = Type.Record(Type.String({ pattern: '^[A-Za-z0-9_-]{1,32}$' }), Type.String({ maxLength: 500 }), {
  maxProperties: 30,
  description: 'custom fields, each a string (at most 30; names 1-32 letters, digits, _ or -); {{fields.<name>}} in a template',
});
const Name = Type.String({ maxLength: 100 });
const Phone = Type.String({ minLength: 1, maxLength: 64, description: 'international format such as +491701234567; stored in E.164' });

export const ContactView = Type.Object(
  { id: Uuid, name: Type.String(), phone: Type.String({ description: 'E.164' }), tags: Type.Array(Type.String()), fields: Type.Record(Type.String(), Type.String()), created_at: Timestamp, updated_at: Timestamp },
  { additionalProperties: false },
);
export const ContactBody = Type.Object({ name: Type.Optional(Name), phone: Phone, tags: Type.Optional(Tags), fields: Type.Optional(Fields) }, { additionalProperties: false });
export const ContactPatch = Type.Object({ name: Type.Optional(Name), phone: Type.Optional(Phone), tags: Type.Optional(Tags), fields: Type.Optional(Fields) }, { additionalProperties: false, minProperties: 1 });
export const ContactListQuery = Type.Object(
  { ...PageQuery, tag: Type.Optional(Tag), group_id: Type.Optional(Type.String({ format: 'uuid' })) },
  { additionalProperties: false },
);
export const ContactList = PageOf(ContactView);
export const IdParams = Type.Object({ id: Type.String({ format: 'uuid' }) });

export const IMPORT_MAX = 5000;
const importContacts = (items: typeof ContactBody | ReturnType<typeof Type.Unknown>) =>
  Type.Object(
    { contacts: Type.Array(items, { minItems: 1, maxItems: IMPORT_MAX, description: `1-${IMPORT_MAX} contacts; a number already a contact is updated` }) },
    { additionalProperties: false },
  );
/** As documented: each row is a POST /contacts body. */
export const ImportBody = importContacts(ContactBody);
/**
 * As the route checks it first: the envelope only. Each row is checked on its own, so that one bad
 * cell is that row's error in the preview instead of a 400 for the whole file.
 */
export const ImportEnvelope = importContacts(Type.Unknown());
export const ImportQuery = Type.Object({ dry_run: Type.Optional(Type.Boolean({ default: false, description: 'true: check every row and answer each one\'s result; nothing is written' })) });
const FieldError = Type.Object({ field: Type.String(), message: Type.String() });
export const ImportDryRun = Type.Object({
  data: Type.Array(
    Type.Union([
      Type.Object({ index: Type.Integer({ minimum: 0 }), valid: Type.Literal(true), action: Type.Union([Type.Literal('create'), Type.Literal('update')]), name: Type.String(), phone: Type.String(), tags: Type.Array(Type.String()), fields: Type.Record(Type.String(), Type.String()) }),
      Type.Object({ index: Type.Integer({ minimum: 0 }), valid: Type.Literal(false), errors: Type.Array(FieldError, { minItems: 1 }) }),
    ]),
  ),
});
export const ImportDone = Type.Object({ created: Type.Integer({ minimum: 0 }), updated: Type.Integer({ minimum: 0 }) });

export const GroupView = Type.Object({ id: Uuid, name: Type.String(), members: Type.Integer({ minimum: 0 }), created_at: Timestamp }, { additionalProperties: false });
const GroupName = Type.String({ minLength: 1, maxLength: 100 });
const ContactIds = Type.Array(Type.String({ format: 'uuid' }), { maxItems: 1000 });
export const GroupBody = Type.Object({ name: GroupName, contact_ids: Type.Optional(ContactIds) }, { additionalProperties: false });
export const GroupPatch = Type.Object({ name: GroupName }, { additionalProperties: false });
export const MembersBody = Type.Object({ contact_ids: Type.Array(Type.String({ format: 'uuid' }), { minItems: 1, maxItems: 1000 }) }, { additionalProperties: false });
export const GroupList = PageOf(GroupView);
export const ListQuery = Type.Object({ ...PageQuery }, { additionalProperties: false });

export const TemplateView = Type.Object({ id: Uuid, name: Type.String(), text: Type.String(), created_at: Timestamp, updated_at: Timestamp }, { additionalProperties: false });
const TemplateText = Type.String({ minLength: 1, maxLength: 1000, description: 'with placeholders {{name}}, {{first_name}}, {{last_name}}, {{phone}}, {{fields.<name>}}; each rendered SMS must stay within 170 characters' });
export const TemplateBody = Type.Object({ name: Type.String({ minLength: 1, maxLength: 100 }), text: TemplateText }, { additionalProperties: false });
export const TemplatePatch = Type.Object({ name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })), text: Type.Optional(TemplateText) }, { additionalProperties: false, minProperties: 1 });
export const TemplateList = PageOf(TemplateView);

export const ContactSendBody = Type.Object(
  {
    group_id: Type.Optional(Type.String({ format: 'uuid', description: 'send to the group\'s members; or tag' })),
    tag: Type.Optional(Tag),
    template_id: Type.Optional(Type.String({ format: 'uuid', description: 'the text, rendered per contact; or message' })),
    message: Type.Optional(Type.String({ minLength: 1, maxLength: 1000, description: 'text with the placeholders of a template, rendered per contact' })),
    device_id: Type.Optional(Type.String({ format: 'uuid' })),
    sim_slot: Type.Optional(Type.Union([Type.Integer({ minimum: -2, maximum: 2 }), Type.Null()])),
    callback_id: Type.Optional(Type.String({ maxLength: 64 })),
    send_at: Type.Optional(Type.String({ format: 'date-time' })),
    valid_until: Type.Optional(Type.String({ format: 'date-time' })),
    ttl: Type.Optional(Type.Integer({ minimum: 1, maximum: 31_536_000 })),
    priority: Type.Optional(Type.Integer({ minimum: -100, maximum: 100 })),
  },
  { additionalProperties: false },
);
export const ContactSendQuery = Type.Object({
  dry_run: Type.Optional(Type.Boolean({ default: false, description: 'true: the preview, each recipient\'s text and segment count or errors; nothing is sent' })),
  partial: Type.Optional(
    Type.Boolean({
      default: false,
      description: 'true: send to the recipients that can be sent to and answer each other one\'s error beside them (201, errors); false: one wrong recipient refuses all (400)',
    }),
  ),
});
export const ContactSendPreview = Type.Object({
  data: Type.Array(
    Type.Union([
      Type.Object({ contact_id: Uuid, valid: Type.Literal(true), phone: Type.String(), message: Type.String(), segments: Type.Integer({ minimum: 1 }), encoding: Type.Union([Type.Literal('gsm7'), Type.Literal('ucs2')]) }),
      Type.Object({ contact_id: Uuid, valid: Type.Literal(false), phone: Type.String(), errors: Type.Array(FieldError, { minItems: 1 }) }),
    ]),
    { description: 'one per recipient, oldest contact first' },
  ),
});
export const ContactSendResult = Type.Object({
  data: Type.Array(Type.Object({ contact_id: Uuid, sms_id: Uuid, phone: Type.String() }), { description: 'the SMS created, one per recipient (GET /sms/{sms_id})' }),
  errors: Type.Optional(
    Type.Array(Type.Composite([RefusedRow, Type.Object({ contact_id: Uuid })]), {
      description: 'only with ?partial=true: each recipient not sent to, index counted among the recipients (empty when all were sent)',
    }),
  ),
});
