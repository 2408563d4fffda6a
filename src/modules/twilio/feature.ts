// The Twilio-compatible API's credentials, and what it owes to their sms_url and StatusCallbacks.
import { defineFeature } from '../../composition/feature.ts';
import { TwilioService } from './service.ts';

declare module '../../composition/feature.ts' {
  interface Services {
    /** The Twilio-compatible API's credentials and callbacks. */
    twilio: TwilioService;
  }
}

export const twilioFeature = defineFeature({
  name: 'twilio',
  provides: ['twilio'],
  make: ({ db, logger }, need) => ({ twilio: new TwilioService(db, need('secrets'), need('webhooks'), logger.child({ component: 'twilio' }), need('devices')) }),
  listens: [
    // Incoming SMS go to the sms_url of the account's Twilio credentials ("twilio" format deliveries).
    { register: (events, need) => void events.listen('incoming.stored', need('twilio').incomingStored) },
  ],
  waysIn: async () => {
    const { twilioCredentialRoutes } = await import('../../api/extended/twilio/routes.ts');
    return { routes: (s) => twilioCredentialRoutes(s.twilio) };
  },
});
