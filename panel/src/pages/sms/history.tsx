// An SMS's status history, oldest first, as the API records it: every change with its time,
// who made it (the API or this panel, the phone, the gateway itself) and why.
import { StatusBadge } from '../../ui/badge.tsx';
import { formatTime } from '../../ui/format.ts';
import type { SmsDetail, SmsHistoryEntry } from '../../api/types.ts';

const SOURCE_LABELS: Record<SmsHistoryEntry['source'], string> = { api: 'by the API', device: 'by the phone', system: 'by the gateway' };

/** Who made a step: the first one, the SMS coming in through the API, says whether that was this panel. */
function sourceLabel(entry: SmsHistoryEntry, index: number, wayIn: SmsDetail['way_in']): string {
  return index === 0 && entry.source === 'api' && wayIn === 'panel' ? 'from the panel' : SOURCE_LABELS[entry.source];
}

export function SmsHistory({ history, wayIn }: { history: SmsHistoryEntry[]; wayIn: SmsDetail['way_in'] }) {
  return (
    <ol class="timeline sms-history">
      {history.map((entry, index) => (
        <li key={index}>
          {/* The step itself (a phone taking it is "processing"), which the API's list shows as its nearest status. */}
          <StatusBadge status={entry.internal_status} />{' '}
          <time dateTime={entry.at}>{formatTime(entry.at)}</time> <span class="muted">{sourceLabel(entry, index, wayIn)}</span>
          {entry.internal_status !== entry.status && <span class="muted"> (shown as {entry.status} by the API)</span>}
          {entry.reason && <p class="sms-history-reason">Reason: {entry.reason}</p>}
        </li>
      ))}
    </ol>
  );
}
