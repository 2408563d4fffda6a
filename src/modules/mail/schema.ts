import { Type } from '@sinclair/typebox';
import { MAIL_TEXT_SOURCES } from './types.ts';

const TextSource = (description: string) => Type.Union(MAIL_TEXT_SOURCES.map((source) => Type.Literal(source)), { description });

export const MailSettingsView = Type.Object(
  {
    text: TextSource(
      'what of a mail the account sends over SMTP becomes the SMS text: subject, body (the plain-text part, without the ' +
        'signature after "-- " and quoted lines) or both (the subject, a new line, the body)',
    ),
    chosen: Type.Boolean({ description: 'false: the account has not chosen, and text is the gateway\'s SMTP_TEXT (it follows a change of it)' }),
    updated_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'when the account chose; null while it follows SMTP_TEXT' }),
  },
  { additionalProperties: false },
);

export const MailSettingsPatch = Type.Object(
  {
    text: Type.Union([TextSource('subject, body or both'), Type.Null()], { description: 'subject, body or both; null: follow the gateway\'s SMTP_TEXT again' }),
  },
  { additionalProperties: false },
);
