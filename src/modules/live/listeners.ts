// What the panel hears live, and from where: SMS status changes once committed (the same seam
// the webhooks use), device presence, and incoming SMS. Ids and states only: the panel reads
// anything more (text, phone) through the API, under its own permission checks.
import type { EventListeners } from '../../events/domain-events.ts';
import type { DeliveryEvents } from '../delivery/domain-events.ts';
import type { DevicesEvents } from '../devices/domain-events.ts';
import type { IncomingEvents } from '../incoming/domain-events.ts';
import type { MessagesEvents } from '../messages/domain-events.ts';
import { newStatus } from '../delivery/status-change.ts';
import { toExtendedStatus } from '../messages/status.ts';
import type { LiveHub } from './hub.ts';

/** The events the panel hears live. */
type LiveEvents = DeliveryEvents & DevicesEvents & IncomingEvents & MessagesEvents;

/**
 * What the live feed hears; its feature registers these only while someone watches (the hub says
 * when): with no panel open, an SMS's events have no live listener to call.
 */
export function liveListeners(hub: LiveHub): EventListeners<LiveEvents> {
  return {
    'sms.status_changed': {
      committed: (changes) => {
        for (const change of changes) {
          // A no_store SMS has no row the panel could open; a canary is not one of the account's SMS lists.
          if (change.transient || change.sms.kind === 'canary' || !hub.listening(change.sms.account_id)) continue;
          hub.publish(change.sms.account_id, {
            type: 'sms.status',
            permission: 'sms:read',
            // status as the Extended API names it; internal_status the step itself, as in an SMS's history.
            data: {
              id: change.sms.id,
              status: toExtendedStatus(newStatus(change)),
              internal_status: newStatus(change),
              at: change.at.toISOString(),
              reason: change.reason,
              device_id: change.sms.device_id,
            },
          });
        }
      },
    },
    // A new SMS is a status too (pending): a dashboard counting today's SMS, or a list open
    // elsewhere, hears of an SMS created by another client or tab without waiting for a phone.
    'sms.queued': {
      committed: (sms) => {
        if (sms.kind === 'canary' || !hub.listening(sms.account_id)) return;
        hub.publish(sms.account_id, {
          type: 'sms.status',
          permission: 'sms:read',
          data: { id: sms.id, status: toExtendedStatus(sms.status), internal_status: sms.status, at: sms.created_at.toISOString(), reason: null, device_id: sms.device_id },
        });
      },
    },
    'device.online': { committed: presence(hub, true) },
    'device.offline': { committed: presence(hub, false) },
    'incoming.stored': {
      committed: (row) => {
        if (!hub.listening(row.account_id)) return;
        hub.publish(row.account_id, {
          type: 'sms.received',
          permission: 'sms:read',
          data: { id: row.id, device_id: row.device_id, at: row.received_at.toISOString() },
        });
      },
    },
  };
}

/** A device coming online or going offline, as its account's streams hear it. */
function presence(hub: LiveHub, online: boolean) {
  return ({ deviceId, accountId }: { deviceId: string; accountId: string }): void => {
    if (!hub.listening(accountId)) return;
    hub.publish(accountId, { type: 'device.presence', permission: 'devices:read', data: { id: deviceId, online, at: new Date().toISOString() } });
  };
}
