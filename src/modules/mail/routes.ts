// Extended API v1: the account's email-to-SMS settings (what of a mail becomes the SMS text).
import { readOneRoute, updateOneRoute } from '../../http/resource-routes.ts';
import { MailSettingsPatch, MailSettingsView } from './schema.ts';
import type { MailService } from './service.ts';
import type { MailSettings } from './types.ts';

const TAG = 'Email to SMS';

export function mailRoutes(mail: MailService) {
  return [
    readOneRoute({
      path: '/account/mail',
      operationId: 'getMailSettings',
      summary: 'What of a mail the account sends over SMTP becomes the SMS text',
      description: 'The account\'s own choice, or the gateway\'s SMTP_TEXT while it has made none (chosen: false). docs/email.md.',
      tag: TAG,
      permission: 'sms:read',
      answer: { description: 'the settings', schema: MailSettingsView },
      read: async ({ auth }) => present(await mail.settings(auth.accountId)),
    }),
    updateOneRoute({
      path: '/account/mail',
      operationId: 'updateMailSettings',
      summary: 'Choose what of the account\'s mail becomes the SMS text: subject, body or both (null: the gateway\'s SMTP_TEXT)',
      description: 'Applies to every mail taken over SMTP with a key of the account from then on. docs/email.md.',
      tag: TAG,
      permission: 'sms:send',
      body: MailSettingsPatch,
      answer: { description: 'the settings now', schema: MailSettingsView },
      errors: ['validation_failed'],
      update: async ({ auth, body }) => present(await mail.setText(auth.accountId, body.text)),
    }),
  ];
}

function present(settings: MailSettings) {
  return { text: settings.text, chosen: settings.chosen, updated_at: settings.updated_at?.toISOString() ?? null };
}
