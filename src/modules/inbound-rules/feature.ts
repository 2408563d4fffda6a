// Inbound rules: tried on every received SMS and MMS text (auto-reply, forward by email or
// webhook, tag), with their counts; and the gateway's one mail relay, which email to SMS uses too.
import { defineFeature } from '../../composition/feature.ts';
import { applyInboundRules } from '../../use-cases/apply-inbound-rules.ts';
import { receivedText } from '../mms/received-text.ts';
import { smtpMailer, type Mailer } from './mailer.ts';
import { InboundRuleService } from './service.ts';

declare module '../../composition/feature.ts' {
  interface Services {
    /** Rules tried on every received SMS (auto-reply, forward, tag), with their counts. */
    inboundRules: InboundRuleService;
    /** One relay for the gateway's mail (SMTP_URL, MAIL_FROM): rules' forwards and email-to-SMS replies. */
    mailer: Mailer;
  }
}

export const inboundRulesFeature = defineFeature({
  name: 'inbound-rules',
  provides: ['inboundRules', 'mailer'],
  make: ({ db, config, clock }, need) => {
    const devices = need('devices');
    // A rule's match_device_id must name one of the account's devices.
    const deviceOfAccount = { exists: (accountId: string, deviceId: string) => devices.get(accountId, deviceId).then(() => true, () => false) };
    return {
      inboundRules: new InboundRuleService(db, clock, config.defaultPhoneRegion, config.inboundRules, deviceOfAccount),
      mailer: smtpMailer(config.inboundRules.smtpUrl, config.inboundRules.mailFrom),
    };
  },
  listens: [
    {
      // Once a received SMS or MMS is committed: after a stop keyword listed its sender (in the
      // transaction that stored it), so no auto-reply reaches it.
      register: (events, need, { logger: parent }) => {
        const logger = parent.child({ component: 'inbound-rules' });
        const parts = { messages: need('messages'), idempotency: need('idempotency'), rules: need('inboundRules'), mailer: need('mailer'), logger };
        events.on('incoming.stored', (sms) => void applyInboundRules(parts, sms).catch((error: unknown) => logger.error({ err: error }, 'inbound rules not applied')));
        // The text of a received MMS meets the same rules.
        events.on('incoming_mms.stored', (mms) =>
          void applyInboundRules(parts, receivedText(mms), 'mms').catch((error: unknown) => logger.error({ err: error }, 'inbound rules not applied to an MMS')),
        );
      },
    },
  ],
  waysIn: async () => {
    const { inboundRuleRoutes } = await import('../../api/extended/inbound-rules/routes.ts');
    return { routes: (s) => inboundRuleRoutes(s.inboundRules) };
  },
});
