// What a send route's body says about how to send (device, SIM, callback, schedule, expiry,
// priority, category), under the names every SMS route gives them, as the messages service takes it.
import type { Static } from '@sinclair/typebox';
import type { CreateSmsBody } from '../../../modules/messages/schema.ts';
import type { NewSms } from '../../../modules/messages/service.ts';

/** The send options of a body, as POST /sms names them; a route may take fewer. */
export type SendOptionsBody = Partial<Pick<Static<typeof CreateSmsBody>, 'device_id' | 'sim_slot' | 'callback_id' | 'no_store' | 'send_at' | 'valid_until' | 'ttl' | 'priority' | 'category'>>;

export function sendOptionsOf(body: SendOptionsBody): Omit<NewSms, 'phone' | 'message'> {
  return {
    deviceId: body.device_id,
    simSlot: body.sim_slot ?? null,
    // "" is "none", as in the legacy API.
    callbackId: body.callback_id || null,
    noStore: body.no_store,
    sendAt: body.send_at,
    validUntil: body.valid_until,
    ttl: body.ttl,
    priority: body.priority,
    category: body.category,
  };
}
