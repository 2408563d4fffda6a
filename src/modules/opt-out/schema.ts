import { Type } from '@sinclair/typebox';
import { PageOf, PageQuery } from '../../common/page-schema.ts';
import { MESSAGE_MAX_CHARACTERS } from '../messages/schema.ts';

const Timestamp = Type.String({ format: 'date-time' });
const Phone = Type.String({ minLength: 1, maxLength: 64, description: 'international format such as +79161234567' });

export const SuppressionView = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    phone: Type.String({ description: 'E.164' }),
    source: Type.Union([Type.Literal('keyword'), Type.Literal('api'), Type.Literal('import')], {
      description: 'keyword: the number sent a stop keyword; api: added through the API or the panel; import: a CSV import',
    }),
    keyword: Type.Union([Type.String(), Type.Null()], { description: 'the keyword received, when source is keyword; null for source api or import' }),
    created_at: Timestamp,
  },
  { additionalProperties: false },
);

export const SuppressionList = PageOf(SuppressionView);

export const SuppressionListQuery = Type.Object(
  { ...PageQuery, phone: Type.Optional(Type.String({ maxLength: 64, pattern: '^[0-9+]*$', description: 'only numbers containing these digits' })) },
  { additionalProperties: false },
);

export const AddSuppressionBody = Type.Object({ phone: Phone }, { additionalProperties: false });

export const SuppressionPhoneParams = Type.Object({ phone: Phone }, { additionalProperties: false });

/** The largest CSV import a call takes. */
export const IMPORT_BODY_LIMIT = 4 * 1024 * 1024;

export const ImportBody = Type.Object(
  {
    phones: Type.Array(Type.String({ maxLength: 64 }), { minItems: 1, maxItems: 100_000, description: 'numbers to add; text/csv: one a line (first column), an optional "phone" header' }),
  },
  { additionalProperties: false },
);

export const ImportResultView = Type.Object({
  added: Type.Integer({ description: 'numbers put on the list' }),
  already: Type.Integer({ description: 'valid numbers that were on it already' }),
  invalid: Type.Array(Type.Object({ line: Type.Integer({ description: '1-based line (CSV) or position (JSON)' }), message: Type.String() }), {
    description: 'entries that are no phone number; the others were added all the same',
  }),
});

const ReplyText = (description: string) =>
  Type.Union([Type.String({ minLength: 1, 'x-maxCharacters': MESSAGE_MAX_CHARACTERS }), Type.Null()], { description });

const settingsFields = {
  enabled: Type.Boolean({ description: 'handle STOP, START and HELP received by the account\'s phones (on for a new account)' }),
  extra_keywords: Type.Array(Type.String({ minLength: 1, maxLength: 40, pattern: '\\S' }), {
    maxItems: 20,
    description: 'the account\'s own stop words, besides STOP, STOPALL, UNSUBSCRIBE, CANCEL, END, QUIT (and СТОП, ARRÊT...)',
  }),
  help_text: ReplyText('answer to HELP, sent through the phone (and SIM) that received it; null: no answer'),
  stop_reply: ReplyText('confirmation sent after a stop keyword; null: none'),
  start_reply: ReplyText('confirmation sent after START or UNSTOP; null: none'),
};

export const OptOutSettingsView = Type.Object(settingsFields, { additionalProperties: false });

export const OptOutSettingsPatch = Type.Partial(Type.Object(settingsFields), { additionalProperties: false, minProperties: 1 });
