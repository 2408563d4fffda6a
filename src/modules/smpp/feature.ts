// SMPP credentials, who submitted which SMS, and the deliver_sm owed to ESMEs. What is owed is
// written on every node, whether or not it listens for SMPP itself: a status change is applied
// by whichever node holds the phone, and the ESME may be bound to another.
import { defineFeature } from '../../composition/feature.ts';
import { SmppService } from './service.ts';

declare module '../../composition/feature.ts' {
  interface Services {
    /** SMPP credentials, who submitted which SMS, and the deliver_sm owed to ESMEs. */
    smpp: SmppService;
  }
}

export const smppFeature = defineFeature({
  name: 'smpp',
  provides: ['smpp'],
  make: ({ db, clock, logger }, need) => ({ smpp: new SmppService(db, need('devices'), need('events'), clock, logger.child({ component: 'smpp' }), need('invalidation')) }),
  listens: [
    {
      // In the transaction of the change: a status change an ESME asked a receipt of, an incoming
      // SMS its credentials may hear. Stored with the change, they survive a restart; the SMPP
      // listener sends them once committed.
      register: (events, need) => {
        const smpp = need('smpp');
        events.listen('sms.status_changed', { inTransaction: async (trx, changes) => void (await smpp.receiptsFor(trx, changes)) });
        events.listen('incoming.stored', { inTransaction: async (trx, sms) => void (await smpp.incomingFor(trx, sms)) });
      },
    },
  ],
  waysIn: async () => {
    const { smppRoutes } = await import('../../api/extended/smpp/routes.ts');
    return { routes: (s) => smppRoutes(s.smpp) };
  },
});
