// A webhook's delivery log, newest first: what was sent, how often, what the receiver answered.
// Owners send a delivery again with "Retry" (a fresh retry window, as the API describes it).
import { useEffect, useRef } from 'preact/hooks';
import { post } from '../../api.ts';
import { formatTime } from '../../ui/format.ts';
import { ErrorNotice } from '../../ui/notice.tsx';
import { DataTable } from '../../ui/data-table.tsx';
import { usePagedList } from '../../ui/use-paged-list.ts';
import type { DeliveryView } from '../../api/types.ts';
import { useAction } from '../../ui/use-action.ts';
import { DeliveryExchange } from './delivery-exchange.tsx';

const STATE_TONES: Record<DeliveryView['status'], string> = { pending: 'badge-info', delivered: 'badge-good', failed: 'badge-bad' };

/** The element id of a delivery's row, so a message about that delivery can lead to it. */
export function deliveryRowId(deliveryId: string): string {
  return `delivery-${deliveryId}`;
}

interface Props {
  webhookId: string;
  canRetry: boolean;
  refreshKey: number;
  /** The delivery the page just made (a test event): its row is marked. */
  markedId?: string;
}

export function DeliveryLog({ webhookId, canRetry, refreshKey, markedId }: Props) {
  const log = usePagedList<DeliveryView>(`/webhooks/${webhookId}/deliveries`);
  const retry = useAction(log.reload);
  // The page's changes (enabling, a test event) add deliveries: read the page shown again.
  const firstKey = useRef(refreshKey);
  useEffect(() => {
    if (refreshKey !== firstKey.current) log.reload();
  }, [refreshKey]);
  return (
    <section aria-labelledby="deliveries-heading">
      <h2 id="deliveries-heading">Deliveries</h2>
      <ErrorNotice error={retry.error} />
      <DataTable
        list={log}
        empty="Nothing delivered yet: deliveries appear here once one of its events happens."
        rowAttributes={(delivery) => ({ id: deliveryRowId(delivery.id), 'data-delivery-status': delivery.status, ...(delivery.id === markedId && { class: 'row-marked' }) })}
        columns={[
          { header: 'Time', class: 'admin-nowrap', cell: (delivery) => formatTime(delivery.created_at) },
          { header: 'Event', cell: (delivery) => <code>{delivery.event_type}</code> },
          { header: 'Attempts', numeric: true, cell: (delivery) => delivery.attempts },
          { header: 'Last status code', cell: (delivery) => delivery.last_status_code ?? <span class="muted">none</span> },
          {
            header: 'State',
            cell: (delivery) => (
              <>
                <span class={`badge ${STATE_TONES[delivery.status]}`}>{delivery.status}</span>
                {delivery.last_error && <div class="muted delivery-error">{delivery.last_error}</div>}
                {delivery.next_attempt_at && <div class="muted">next attempt {formatTime(delivery.next_attempt_at)}</div>}
                <DeliveryExchange delivery={delivery} />
              </>
            ),
          },
          canRetry && {
            header: 'Action',
            cell: (delivery) => (
              <button type="button" class="button button-small" disabled={retry.busy} onClick={() => void retry.run(() => post(`/webhooks/${webhookId}/deliveries/${delivery.id}/retry`))}>
                Retry
              </button>
            ),
          },
        ]}
      />
    </section>
  );
}
