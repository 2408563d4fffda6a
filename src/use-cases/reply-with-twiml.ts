// A receiver of an incoming SMS (a Twilio credential's sms_url) answered with TwiML <Message>s:
// each is sent as an SMS through the phone that received the SMS, to its sender unless the
// <Message> names another number. The delivery's id makes the idempotency key, so an answer
// handed over twice (the sender is at least once) sends its replies once. A reply longer than an
// SMS the API would take (170 characters) is cut there, as the API would refuse it whole.
import type { IncomingService } from '../modules/incoming/service.ts';
import type { TwimlReplies } from '../modules/twilio/delivery-format.ts';
import { MESSAGE_MAX_CHARACTERS } from '../modules/messages/schema.ts';
import { createSms, type CreateSmsParts } from './create-sms.ts';

export interface ReplyWithTwimlParts extends CreateSmsParts {
  incoming: IncomingService;
}

export async function replyWithTwiml(parts: ReplyWithTwimlParts, { accountId, incomingId, replies, deliveryId }: TwimlReplies): Promise<number> {
  const received = await parts.incoming.find(accountId, incomingId);
  if (!received) return 0;
  let sent = 0;
  for (const [index, { to, body }] of replies.entries()) {
    const reply = { body: [...body].slice(0, MESSAGE_MAX_CHARACTERS).join(''), ...(to ? { to } : {}) };
    await createSms(
      parts,
      accountId,
      { key: `twiml:${deliveryId}:${index}`, operation: 'TwiML reply', body: reply },
      async () => [await parts.messages.prepare(accountId, { phone: reply.to ?? received.phone, message: reply.body, ...(received.device_id ? { deviceId: received.device_id } : {}), phoneField: 'to', wayIn: 'twiml' })],
      () => ({ status: 201, body: null }),
    );
    sent++;
  }
  return sent;
}
