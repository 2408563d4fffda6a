// How a page follows live events: by type, on the panel's one connection (live/connection.ts),
// which the app provides while someone is logged in.
import { createContext } from 'preact';
import { useContext, useEffect, useRef } from 'preact/hooks';
import type { LiveConnection } from './connection.ts';
import type { LiveEventOf, LiveEventType } from './events.ts';

export const LiveContext = createContext<LiveConnection | null>(null);

/** A handler for each event type the page follows. */
export type LiveHandlers = { [Type in LiveEventType]?: (event: LiveEventOf<Type>) => void };

/** Calls the handler of each live event's type; `onReconnect` when the stream opens again after a drop. */
export function useLiveEvents(handlers: LiveHandlers, onReconnect?: () => void): void {
  const connection = useContext(LiveContext);
  // The latest handlers, read at each event: a page's handlers close over its current data.
  const latest = useRef({ handlers, onReconnect });
  latest.current = { handlers, onReconnect };
  const types = (Object.keys(handlers) as LiveEventType[]).sort().join(' ');
  useEffect(() => {
    if (!connection) return;
    const stops = (types ? (types.split(' ') as LiveEventType[]) : []).map((type) =>
      connection.subscribe(type, (event) => (latest.current.handlers[type] as ((event: LiveEventOf<typeof type>) => void) | undefined)?.(event)),
    );
    stops.push(connection.onReconnect(() => latest.current.onReconnect?.()));
    return () => stops.forEach((stop) => stop());
  }, [connection, types]);
}
