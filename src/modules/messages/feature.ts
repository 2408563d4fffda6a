// Messages: the SMS an account sends, from the request that creates them to their last status.
import { defineFeature } from '../../composition/feature.ts';
import { MessageService } from './service.ts';
import { SmsWriter } from './sms-writer.ts';

declare module '../../composition/feature.ts' {
  interface Services {
    messages: MessageService;
  }
}

export const messagesFeature = defineFeature({
  name: 'messages',
  provides: ['messages'],
  make: ({ db, config, clock }, need) => ({
    // A callback_id must name one of the account's webhooks; a recipient must not have opted out.
    messages: new MessageService(db, need('devices'), need('dispatcher'), new SmsWriter(db), need('events'), clock, config.defaultPhoneRegion, need('webhooks'), need('optOut')),
  }),
  routes: async (services) => {
    const { messageRoutes } = await import('../../api/extended/messages/routes.ts');
    return messageRoutes(services);
  },
});
