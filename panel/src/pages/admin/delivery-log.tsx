// A webhook's delivery log, newest first: what was sent, how often, what the receiver answered.
// Owners send a delivery again with "Retry" (a fresh retry window, as the API describes it).
import { get, post, type Page as ApiPage } from '../../api.ts';
import { formatTime } from '../../ui/format.ts';
import { ErrorNotice } from '../../ui/notice.tsx';
import { Empty, Loading } from '../../ui/page.tsx';
import { Pager, useCursors } from '../../ui/pager.tsx';
import { useLoad } from '../../ui/use-load.ts';
import type { DeliveryView } from '../../api/types.ts';
import { useAction } from './use-action.ts';
import { DeliveryExchange } from './delivery-exchange.tsx';

const STATE_TONES: Record<DeliveryView['status'], string> = { pending: 'badge-info', delivered: 'badge-good', failed: 'badge-bad' };

export function DeliveryLog({ webhookId, canRetry, refreshKey }: { webhookId: string; canRetry: boolean; refreshKey: number }) {
  const cursors = useCursors();
  const log = useLoad(() => get<ApiPage<DeliveryView>>(`/webhooks/${webhookId}/deliveries`, { cursor: cursors.cursor }), [webhookId, cursors.cursor, refreshKey]);
  const retry = useAction(log.reload);
  return (
    <section aria-labelledby="deliveries-heading">
      <h2 id="deliveries-heading">Deliveries</h2>
      <ErrorNotice error={retry.error} />
      <Loading data={log.data} error={log.error}>
        {(page) =>
          page.data.length === 0 ? (
            <Empty>Nothing delivered yet: deliveries appear here once one of its events happens.</Empty>
          ) : (
            <>
              <div class="table-wrap">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Time</th>
                      <th scope="col">Event</th>
                      <th scope="col" class="num">
                        Attempts
                      </th>
                      <th scope="col">Last status code</th>
                      <th scope="col">State</th>
                      {canRetry && <th scope="col">Action</th>}
                    </tr>
                  </thead>
                  <tbody>
                    {page.data.map((delivery) => (
                      <tr key={delivery.id} data-delivery-status={delivery.status}>
                        <td class="admin-nowrap">{formatTime(delivery.created_at)}</td>
                        <td>
                          <code>{delivery.event_type}</code>
                        </td>
                        <td class="num">{delivery.attempts}</td>
                        <td>{delivery.last_status_code ?? <span class="muted">none</span>}</td>
                        <td>
                          <span class={`badge ${STATE_TONES[delivery.status]}`}>{delivery.status}</span>
                          {delivery.last_error && <div class="muted delivery-error">{delivery.last_error}</div>}
                          {delivery.next_attempt_at && <div class="muted">next attempt {formatTime(delivery.next_attempt_at)}</div>}
                          <DeliveryExchange delivery={delivery} />
                        </td>
                        {canRetry && (
                          <td>
                            <button type="button" class="button button-small" disabled={retry.busy} onClick={() => void retry.run(() => post(`/webhooks/${webhookId}/deliveries/${delivery.id}/retry`))}>
                              Retry
                            </button>
                          </td>
                        )}
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              <Pager cursors={cursors} next={page.next_cursor} />
            </>
          )
        }
      </Loading>
    </section>
  );
}
