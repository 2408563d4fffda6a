// What a send route's body says about how to send (device, SIM, callback, schedule, expiry,
// priority), under the names every SMS route gives them, as the messages service takes it.
import type { NewSms } from './service.ts';

/** The send options of a body (device, SIM, callback, schedule, expiry, priority), as every send route names them. */
export interface SendOptionsBody {
  device_id?: string;
  sim_slot?: number | null;
  callback_id?: string;
  no_store?: boolean;
  send_at?: string;
  valid_until?: string;
  ttl?: number;
  priority?: number;
}

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
  };
}
