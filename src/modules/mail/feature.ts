// Email to SMS: who wrote to which number by email, and their replies back by email. The SMTP
// listener that takes the mail is its own feature (listener-feature.ts), on with SMTP_PORT.
import { defineFeature } from '../../composition/feature.ts';
import { MailService } from './service.ts';

declare module '../../composition/feature.ts' {
  interface Services {
    /** Email to SMS: who wrote to which number by email, and their replies back by email. */
    mail: MailService;
  }
}

export const mailFeature = defineFeature({
  name: 'mail',
  provides: ['mail'],
  make: ({ db, config, clock, logger }, need) => ({ mail: new MailService(db, clock, logger.child({ component: 'mail' }), need('mailer'), config.smtp.domain, config.smtp.text) }),
  listens: [
    {
      // An SMS received from a number someone last wrote to by email goes back to them by email,
      // once stored. Without SMTP_DOMAIN there is no address to answer from: nothing listens.
      register: (events, need, { config }) => {
        if (config.smtp.domain) events.on('incoming.stored', need('mail').incomingStored);
      },
    },
  ],
  waysIn: async () => {
    const { mailRoutes } = await import('../../api/extended/mail/routes.ts');
    return { routes: (s) => mailRoutes(s.mail) };
  },
});
