import { Type } from '@sinclair/typebox';
import { PageOf, PageQuery } from '../../common/page-schema.ts';
import { SmsView } from '../messages/schema.ts';

/** Recipients of one group MMS at most. */
export const MAX_RECIPIENTS = 20;
/** Characters of an MMS's text at most (the text is a part of the MMS, not an SMS's 160). */
export const MMS_TEXT_MAX_CHARACTERS = 5000;
export const MMS_SUBJECT_MAX_CHARACTERS = 80;

const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601, UTC' });
const Sha256 = Type.String({ pattern: '^[0-9a-f]{64}$', description: 'SHA-256 of the stored bytes, hex' });

export const MediaView = Type.Object(
  {
    id: Type.String({ format: 'uuid', description: 'name it in media_ids of POST /mms' }),
    content_type: Type.String({ description: 'the type declared and found in the bytes, e.g. image/jpeg' }),
    size: Type.Integer({ minimum: 1, description: 'bytes' }),
    sha256: Sha256,
    created_at: Timestamp,
    download_path: Type.String({ description: 'GET it (with sms:read) for the bytes; Range requests are answered' }),
  },
  { additionalProperties: false },
);

export const MediaIdParams = Type.Object({ id: Type.String({ format: 'uuid' }) });

/** The bytes themselves, as OpenAPI describes a binary body. */
export const MediaBody = Type.String({ format: 'binary', description: 'the media bytes' });

const Scheduling = {
  send_at: Type.Optional(Type.String({ format: 'date-time', description: 'not sent before this time (ISO 8601); at most a year ahead' })),
  valid_until: Type.Optional(Type.String({ format: 'date-time', description: 'not taken by a phone by then, the MMS ends as failed_send with reason "expired"' })),
  ttl: Type.Optional(Type.Integer({ minimum: 1, maximum: 31_536_000, description: 'seconds from now; instead of valid_until' })),
  priority: Type.Optional(Type.Integer({ minimum: -100, maximum: 100, default: 0, description: 'higher first; equal priority goes oldest first' })),
};

export const CreateMmsBody = Type.Object(
  {
    phone: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'the recipient, international format; or phones' })),
    phones: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
        minItems: 1,
        maxItems: MAX_RECIPIENTS,
        description: 'several recipients: ONE group MMS to all of them (one message, one status), sent by one phone; instead of phone',
      }),
    ),
    message: Type.Optional(Type.String({ maxLength: MMS_TEXT_MAX_CHARACTERS, description: 'the text part' })),
    subject: Type.Optional(Type.String({ maxLength: MMS_SUBJECT_MAX_CHARACTERS })),
    media_ids: Type.Optional(
      Type.Array(Type.String({ format: 'uuid' }), {
        maxItems: 10,
        description:
          'ids of media uploaded with POST /media, in the order of the parts: at most 10, together at most MMS_MAX_MESSAGE_BYTES. ' +
          'Empty or left out: a text-only MMS, which then needs a message or a subject',
      }),
    ),
    device_id: Type.Optional(Type.String({ format: 'uuid', description: 'send through this device; omitted: the gateway chooses' })),
    sim_slot: Type.Optional(Type.Union([Type.Integer({ minimum: -2, maximum: 2 }), Type.Null()], { description: 'as for POST /sms' })),
    callback_id: Type.Optional(Type.String({ maxLength: 64, description: 'as for POST /sms' })),
    ...Scheduling,
  },
  { additionalProperties: false },
);

export const MmsPartView = Type.Object(
  {
    media_id: Type.String({ format: 'uuid' }),
    content_type: Type.String(),
    size: Type.Integer({ minimum: 0 }),
    download_path: Type.String({ description: 'GET it (with sms:read); not found once MEDIA_RETENTION_DAYS removed it' }),
  },
  { additionalProperties: false },
);

export const MmsView = Type.Composite(
  [
    SmsView,
    Type.Object({
      subject: Type.Union([Type.String(), Type.Null()], { description: 'the subject given to POST /mms; null when it was sent without one' }),
      recipients: Type.Array(Type.String(), { description: 'every recipient, phone first; more than one: a group MMS' }),
      parts: Type.Array(MmsPartView),
    }),
  ],
  { additionalProperties: false },
);

export const MmsIdParams = Type.Object({ id: Type.String({ format: 'uuid' }) });

export const IncomingPartView = Type.Object(
  {
    id: Type.String({ description: 'the phone\'s own id of the part' }),
    content_type: Type.String(),
    size: Type.Integer({ minimum: 0, description: 'bytes: as stored once uploaded, as the phone declared before' }),
    uploaded: Type.Boolean(),
    media_id: Type.Union([Type.String({ format: 'uuid' }), Type.Null()], { description: 'the stored media of the part; null until the phone uploaded it' }),
    sha256: Type.Union([Sha256, Type.Null()], {
      description: 'SHA-256 of the stored bytes, hex; null until the phone uploaded the part, and again once MEDIA_RETENTION_DAYS removed the media',
    }),
    download_path: Type.Union([Type.String(), Type.Null()], { description: 'GET it (with sms:read) for the bytes; null until uploaded' }),
    missing_reason: Type.Union([Type.Literal('too_large'), Type.Literal('type_refused'), Type.Literal('not_uploaded'), Type.Null()], {
      description:
        'why the part is missing: too_large (its upload passed MMS_MAX_MESSAGE_BYTES), type_refused (a type MMS media may not ' +
        'be, or bytes that were not the type reported), not_uploaded (not uploaded within an hour of the report). Set when an ' +
        'upload is refused (a good upload still replaces it while the MMS is receiving) and on every part missing when the MMS ' +
        'ended; null otherwise, and once uploaded',
    }),
  },
  { additionalProperties: false },
);

export const IncomingMmsView = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    device_id: Type.String({ format: 'uuid', description: 'the phone that received it' }),
    device_mms_id: Type.String({ description: 'the phone\'s own id of the MMS' }),
    phone: Type.String({ description: 'the sender' }),
    recipients: Type.Array(Type.String(), { description: 'the other recipients of a group MMS, as the phone reported them' }),
    subject: Type.Union([Type.String(), Type.Null()], { description: 'the subject, as the phone reported it; null when the phone reported none' }),
    message: Type.Union([Type.String(), Type.Null()], { description: 'the text part; null when the phone reported none' }),
    sim_slot: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], { description: 'SIM slot that received it; null when the phone did not report one' }),
    received_at: Timestamp,
    created_at: Timestamp,
    status: Type.Union([Type.Literal('receiving'), Type.Literal('complete'), Type.Literal('incomplete')], {
      description:
        'receiving: parts are still awaited; complete: every part is uploaded; incomplete: it ended without some parts (each ' +
        'missing part says why in missing_reason). mms.received is sent once, when it becomes complete or incomplete',
    }),
    complete: Type.Boolean({ description: 'every part is uploaded (and mms.received was sent); false while receiving, and for an incomplete MMS' }),
    parts: Type.Array(IncomingPartView),
  },
  { additionalProperties: false },
);

export const IncomingMmsListQuery = Type.Object({ ...PageQuery, device_id: Type.Optional(Type.String({ format: 'uuid' })) }, { additionalProperties: false });
export const IncomingMmsList = PageOf(IncomingMmsView);

export const DeviceMmsPartParams = Type.Object({
  mmsId: Type.String({ minLength: 1, maxLength: 64, description: 'the phone\'s own id of the MMS, as it reported it on its mms topic' }),
  partId: Type.String({ minLength: 1, maxLength: 64, description: 'the part\'s id, as the report named it' }),
});
