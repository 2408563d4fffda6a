// Conversations: one per remote number, with its last activity, newest SMS each way and unread count.
import { defineFeature } from '../../composition/feature.ts';
import { hearingMmsText } from '../mms/received-text.ts';
import { ConversationService } from './service.ts';

declare module '../../composition/feature.ts' {
  interface Services {
    /** One conversation per remote number: last activity, newest SMS each way, unread count. */
    conversations: ConversationService;
  }
}

export const conversationsFeature = defineFeature({
  name: 'conversations',
  provides: ['conversations'],
  make: ({ db, config, clock, logger }) => ({ conversations: new ConversationService(db, clock, config.defaultPhoneRegion, logger.child({ component: 'conversations' })) }),
  listens: [
    {
      // A sent SMS and a received one (an SMS, or an MMS by its text) move their number's
      // conversation (a received one in its transaction).
      register: (events, need) => {
        const conversations = need('conversations');
        events.listen('sms.queued', conversations.smsQueued);
        events.listen('incoming.stored', conversations.incomingStored);
        events.listen('incoming_mms.stored', hearingMmsText(conversations.incomingStored));
      },
    },
  ],
  // Conversations moved by the last requests' SMS are written before the database closes.
  runs: ({ conversations }) => [{ name: 'conversations', start: () => {}, stop: () => conversations.stop(), stopsIn: 'last' }],
  waysIn: async () => {
    const { conversationRoutes } = await import('../../api/extended/conversations/routes.ts');
    return { routes: (s) => conversationRoutes(s) };
  },
});
