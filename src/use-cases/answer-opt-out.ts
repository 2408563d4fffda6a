// A keyword's answer (a STOP or START confirmation, the help text) goes out as an SMS through the
// phone, and the SIM, that received the keyword. It is sent past the suppression list (the sender
// has just opted out, and must still hear that it worked), once per received SMS: the received
// SMS's id makes the idempotency key, so an event heard twice sends one answer.
import type { OptOutReply } from '../modules/opt-out/types.ts';
import { MESSAGE_MAX_CHARACTERS } from '../modules/messages/schema.ts';
import { createSms, type CreateSmsParts } from './create-sms.ts';

export async function answerOptOut(parts: CreateSmsParts, reply: OptOutReply): Promise<void> {
  const text = [...reply.text].slice(0, MESSAGE_MAX_CHARACTERS).join('');
  await createSms(
    parts,
    reply.accountId,
    { key: `opt-out:${reply.incomingId}`, operation: 'opt-out answer', body: { to: reply.phone, text } },
    async () => [
      await parts.messages.prepare(reply.accountId, {
        phone: reply.phone,
        message: text,
        ...(reply.deviceId ? { deviceId: reply.deviceId } : {}),
        simSlot: reply.simSlot,
        transactional: true,
        wayIn: 'opt-out',
      }),
    ],
    () => ({ status: 201, body: null }),
  );
}
