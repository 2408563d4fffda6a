// Twilio's format of webhook deliveries ("twilio": form bodies signed as Twilio signs them), and
// the TwiML an sms_url may answer with, sent through the phone that received the SMS.
import { defineFeature } from '../../composition/feature.ts';
import { replyWithTwiml } from '../../use-cases/reply-with-twiml.ts';
import { twilioFormat } from './delivery-format.ts';

export const twilioRepliesFeature = defineFeature({
  name: 'twilio-replies',
  provides: ['deliveryFormats'],
  make: (_context, need) => {
    const twilio = need('twilio');
    const answer = (replies: Parameters<typeof replyWithTwiml>[1]) =>
      replyWithTwiml({ messages: need('messages'), idempotency: need('idempotency'), incoming: need('incoming') }, replies).then(() => undefined);
    return { deliveryFormats: new Map([['twilio', twilioFormat(answer, (incomingId, deliveryId) => twilio.claimReply(incomingId, deliveryId))]]) };
  },
});
