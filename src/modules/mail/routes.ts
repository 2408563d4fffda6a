// Extended API v1: the account's email-to-SMS settings (what of a mail becomes the SMS text).
import { defineRoute } from '../../http/route.ts';
import { MailSettingsPatch, MailSettingsView } from './schema.ts';
import type { MailService } from './service.ts';
import type { MailSettings } from './types.ts';

const TAG = 'Email to SMS';

export function mailRoutes(mail: MailService) {
  return [
    defineRoute({
      method: 'get',
      path: '/account/mail',
      operationId: 'getMailSettings',
      summary: 'What of a mail the account sends over SMTP becomes the SMS text',
      description: 'The account\'s own choice, or the gateway\'s SMTP_TEXT while it has made none (chosen: false). docs/email.md.',
      tag: TAG,
      permission: 'sms:read',
      responses: { 200: { description: 'the settings', schema: MailSettingsView } },
      async handle({ auth }) {
        return { status: 200, body: present(await mail.settings(auth.accountId)) };
      },
    }),
    defineRoute({
      method: 'patch',
      path: '/account/mail',
      operationId: 'updateMailSettings',
      summary: 'Choose what of the account\'s mail becomes the SMS text: subject, body or both (null: the gateway\'s SMTP_TEXT)',
      description: 'Applies to every mail taken over SMTP with a key of the account from then on. docs/email.md.',
      tag: TAG,
      permission: 'sms:send',
      body: MailSettingsPatch,
      responses: { 200: { description: 'the settings now', schema: MailSettingsView } },
      errors: ['validation_failed'],
      async handle({ auth, body }) {
        return { status: 200, body: present(await mail.setText(auth.accountId, body.text)) };
      },
    }),
  ];
}

function present(settings: MailSettings) {
  return { text: settings.text, chosen: settings.chosen, updated_at: settings.updated_at?.toISOString() ?? null };
}
