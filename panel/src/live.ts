// Live updates: one EventSource per page that wants them, on the gateway's event stream
// (authorised by the session cookie). The browser reconnects by itself after a drop; a page
// that missed events while disconnected reloads its data on `open`.
import { useEffect, useRef } from 'preact/hooks';
import { API } from './api.ts';

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
const TYPES: LiveEvent['type'][] = ['sms.status', 'device.presence', 'sms.received'];

/** Calls `onEvent` for each live event; `onReconnect` after the stream (re)opens. */
export function useLiveEvents(onEvent: (event: LiveEvent) => void, onReconnect?: () => void): void {
  const handlers = useRef({ onEvent, onReconnect });
  handlers.current = { onEvent, onReconnect };
  useEffect(() => {
    const source = new EventSource(`${API}/events`);
    let opened = false;
    source.addEventListener('open', () => {
      // The first open is the page's own load; later ones follow a drop.
      if (opened) handlers.current.onReconnect?.();
      opened = true;
      document.body.dataset.live = 'connected';
    });
    source.addEventListener('error', () => {
      document.body.dataset.live = 'reconnecting';
    });
    for (const type of TYPES) {
      source.addEventListener(type, (message) => {
        try {
          handlers.current.onEvent({ ...(JSON.parse((message as MessageEvent<string>).data) as object), type } as LiveEvent);
        } catch {
          // A malformed event is skipped; the next reload shows the truth.
        }
      });
    }
    return () => source.close();
  }, []);
}
