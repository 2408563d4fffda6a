// Opt-out: the suppression list (numbers that sent STOP), the account's keywords and answers, and
// the hashed list the phones hold to refuse an encrypted SMS to a listed number.
import { defineFeature } from '../../composition/feature.ts';
import { answerOptOut } from '../../use-cases/answer-opt-out.ts';
import { optedOutListPushes } from '../../use-cases/push-opted-out-list.ts';
import { hearingMmsText } from '../mms/received-text.ts';
import { OptedOutLists } from './device-list.ts';
import { OptOutService } from './service.ts';
import { optOutWebhookListeners } from './webhook-listeners.ts';

declare module '../../composition/feature.ts' {
  interface Services {
    /** The suppression list (numbers that sent STOP) and the account's opt-out settings. */
    optOut: OptOutService;
  }
}

export const optOutFeature = defineFeature({
  name: 'opt-out',
  provides: ['optOut'],
  make: ({ db, config, clock }, need) => ({ optOut: new OptOutService(db, need('events'), clock, config.defaultPhoneRegion) }),
  listens: [
    {
      // Hears every received SMS, and the text of every received MMS (a STOP sent as a text-only MMS
      // must hold too), in the transaction that stores it: a STOP lists its sender with it. A
      // keyword is answered once that commits, through the phone that received it.
      register: (events, need, { logger }) => {
        const optOut = need('optOut');
        const heard = { inTransaction: optOut.heard.bind(optOut) };
        events.listen('incoming.stored', heard);
        events.listen('incoming_mms.stored', hearingMmsText(heard));
        const parts = { messages: need('messages'), idempotency: need('idempotency') };
        events.on('opt_out.reply_due', (reply) =>
          answerOptOut(parts, reply).catch((error: unknown) => logger.warn({ err: error, accountId: reply.accountId }, 'opt-out answer not sent')),
        );
      },
    },
    { register: (events, need) => void events.listenAll(optOutWebhookListeners(need('outbox'), need('webhookSender'))) },
    {
      // Every change of the list is pushed, hashed, to the account's online phones.
      register: (events, need, { db, logger, parts }) =>
        void events.listenAll(optedOutListPushes({
          lists: parts.optedOutLists ?? new OptedOutLists(db, logger.child({ component: 'opt-out' })),
          devices: need('devices'),
          link: need('taskLink'),
          invalidation: need('invalidation'),
          logger: logger.child({ component: 'opt-out' }),
        })),
    },
  ],
  waysIn: async () => {
    const { optOutRoutes } = await import('../../api/extended/opt-out/routes.ts');
    return { routes: (s) => optOutRoutes(s.optOut) };
  },
});
