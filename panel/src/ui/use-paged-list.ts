// A cursor-paged list of the API (GET /sms, /devices, /webhooks...), newest first: the page
// shown, the cursors behind the pager, and the live events that make it read again. Every list
// page reads its rows through this, and shows them with DataTable.
import { get, type Page as ApiPage, type RequestOptions } from '../api.ts';
import type { LiveEventOf, LiveEventType } from '../live/events.ts';
import { useLiveEvents, type LiveHandlers } from '../live/use-live-events.ts';
import { useCursors, type Cursors } from './pager.tsx';
import { useLoad, type Loaded } from './use-load.ts';
import { useThrottled } from './use-throttled.ts';

/** Live events can come in bursts (a bulk send reports hundreds of statuses a second). */
const LIVE_RELOAD_MS = 1000;

export interface PagedList<Row> extends Loaded<ApiPage<Row>> {
  cursors: Cursors;
  /** The rows shown; none until the first page has loaded. */
  rows: Row[];
  /** After adding a row (it heads the first page): back to the first page, read afresh. */
  restart(): void;
}

/** What the list shows now, for deciding whether an event concerns it. */
export interface Shown<Row> {
  page: number;
  rows: Row[];
}

/** For each event type the list follows: whether this event changes what it shows. */
export type LiveMatch<Row> = { [Type in LiveEventType]?: (event: LiveEventOf<Type>, shown: Shown<Row>) => boolean };

/**
 * Reads `path` with `query`, one page at a time; a changed query starts again from the first page.
 * An event `liveMatch` accepts reads the page again (at most once a second); so does the stream
 * opening again after a drop, when events may have been missed.
 */
export function usePagedList<Row>(path: string, query: RequestOptions['query'] = {}, liveMatch: LiveMatch<Row> = {}): PagedList<Row> {
  const listKey = JSON.stringify([path, query]);
  const cursors = useCursors(listKey);
  const list = useLoad(() => get<ApiPage<Row>>(path, { ...query, cursor: cursors.cursor }), [listKey, cursors.cursor]);
  const rows = list.data?.data ?? [];
  const reloadSoon = useThrottled(list.reload, LIVE_RELOAD_MS);
  const handlers: Record<string, (event: never) => void> = {};
  for (const [type, matches] of Object.entries(liveMatch) as [LiveEventType, (event: never, shown: Shown<Row>) => boolean][]) {
    handlers[type] = (event) => matches(event, { page: cursors.page, rows }) && reloadSoon();
  }
  const follows = Object.keys(handlers).length > 0;
  useLiveEvents(handlers as LiveHandlers, follows ? list.reload : undefined);
  return { ...list, cursors, rows, restart: () => (cursors.page === 1 ? list.reload() : cursors.reset()) };
}
