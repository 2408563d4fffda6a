// Extended API v1: the account's email-to-SMS settings (what of a mail becomes the SMS text).
import { settingsRoutes } from '../../../http/resource-routes.ts';
import { MailSettingsPatch, MailSettingsView } from '../../../modules/mail/schema.ts';
import type { MailService } from '../../../modules/mail/service.ts';
import type { MailSettings } from '../../../modules/mail/types.ts';

export function mailRoutes(mail: MailService) {
  const settings = settingsRoutes({
    tag: 'Email to SMS',
    read: 'sms:read',
    write: 'sms:send',
    one: { description: 'the settings', schema: MailSettingsView },
    present,
  });
  return [
    settings.get({
      path: '/account/mail',
      operationId: 'getMailSettings',
      summary: 'What of a mail the account sends over SMTP becomes the SMS text',
      description: 'The account\'s own choice, or the gateway\'s SMTP_TEXT while it has made none (chosen: false). docs/email.md.',
      read: ({ auth }) => mail.settings(auth.accountId),
    }),
    settings.update({
      path: '/account/mail',
      operationId: 'updateMailSettings',
      summary: 'Choose what of the account\'s mail becomes the SMS text: subject, body or both (null: the gateway\'s SMTP_TEXT)',
      description: 'Applies to every mail taken over SMTP with a key of the account from then on. docs/email.md.',
      body: MailSettingsPatch,
      answer: 'the settings now',
      errors: ['validation_failed'],
      update: ({ auth, body }) => mail.setText(auth.accountId, body.text),
    }),
  ];
}

function present(settings: MailSettings) {
  return { text: settings.text, chosen: settings.chosen, updated_at: settings.updated_at?.toISOString() ?? null };
}
