// The "twilio" webhook format: deliveries are POSTed form-encoded and signed with
// X-Twilio-Signature (keyed with the credential's auth token), as Twilio posts to its
// customers. An inbound SMS's receiver may answer with TwiML: its <Message>s are handed to
// `reply`, which sends them through the phone that received the SMS.
import type { DeliveryFormat } from '../webhooks/outbound/delivery-format.ts';
import { twilioSignature } from './signature.ts';
import { repliesOf, type TwimlReply } from './twiml.ts';
import { uuidOfMessageSid } from './sids.ts';

/** What a TwiML answer asks for: replies to the incoming SMS named, through the phone that received it. */
export interface TwimlReplies {
  accountId: string;
  /** The incoming SMS answered. */
  incomingId: string;
  replies: TwimlReply[];
  /** The delivery answered: one set of replies per delivery, however often its answer is handed over. */
  deliveryId: string;
}

/**
 * `claim`: whether this delivery may answer the incoming SMS (the first with a <Message> does;
 * another credential's answer to the same SMS is dropped, so the sender gets one reply).
 */
export function twilioFormat(reply: (replies: TwimlReplies) => Promise<void>, claim: (incomingId: string, deliveryId: string) => Promise<boolean>): DeliveryFormat {
  return {
    headers: ({ id, url, body, secret }) => ({
      'content-type': 'application/x-www-form-urlencoded',
      'x-twilio-signature': twilioSignature(secret, url, new URLSearchParams(body)),
      // As Twilio sends it: the same at every retry of one request, so a receiver can skip repeats.
      'i-twilio-idempotency-token': id,
    }),
    async answered({ id, accountId, body, answer }) {
      const params = new URLSearchParams(body);
      // Only an incoming SMS is answered with work; a StatusCallback's answer is ignored, as Twilio does.
      if (!params.has('SmsMessageSid')) return;
      const incomingId = uuidOfMessageSid(params.get('MessageSid') ?? '');
      const replies = repliesOf(answer);
      if (!incomingId || replies.length === 0) return;
      if (!(await claim(incomingId, id))) return;
      await reply({ accountId, incomingId, replies, deliveryId: id });
    },
  };
}
