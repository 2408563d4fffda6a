// The events of the gateway's stream (GET /events), as its route describes them. Kept by hand:
// the OpenAPI document names the stream, not the events in it.

export interface SmsStatusEvent {
  type: 'sms.status';
  id: string;
  /** As the SMS view names it; internal_status is the step (processing shows as pending). */
  status: string;
  internal_status: string;
  at: string;
  reason: string | null;
  device_id: string | null;
}

export interface DevicePresenceEvent {
  type: 'device.presence';
  id: string;
  online: boolean;
  at: string;
}

export interface IncomingSmsEvent {
  type: 'sms.received';
  id: string;
  device_id: string;
  at: string;
}

export type LiveEvent = SmsStatusEvent | DevicePresenceEvent | IncomingSmsEvent;
export type LiveEventType = LiveEvent['type'];
export type LiveEventOf<Type extends LiveEventType> = Extract<LiveEvent, { type: Type }>;

export const LIVE_EVENT_TYPES: LiveEventType[] = ['sms.status', 'device.presence', 'sms.received'];
