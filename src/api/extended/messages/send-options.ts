// What a send route's body says about how to send (device, SIM, callback, schedule, expiry,
// priority, category), under the names every SMS route gives them, as the messages service takes it;
// and what the caller says of the SMS's way in.
import type { Static } from '@sinclair/typebox';
import type { RequestAuth } from '../../../http/middleware/authenticate.ts';
import type { CreateSmsBody } from '../../../modules/messages/schema.ts';
import type { NewSms } from '../../../modules/messages/service.ts';
import type { SmsWayIn } from '../../../modules/messages/types.ts';

/** A user's session is the control panel's: the SMS it sends say they came from there, whatever route sent them. */
export function wayInOf(auth: RequestAuth): SmsWayIn {
  return auth.session ? 'panel' : 'api';
}

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
