// What went back and forth for one delivery: the event as sent, and the receiver's last answer
// (its status code and the start of its body). Folded by default: the log stays a list, and the
// detail is one click away when a receiver misbehaves.
import type { DeliveryView } from '../../api/types.ts';

export function DeliveryExchange({ delivery }: { delivery: DeliveryView }) {
  return (
    <details class="delivery-exchange" data-testid="delivery-exchange">
      <summary>Payload and answer</summary>
      <h3 class="exchange-heading">Sent</h3>
      {delivery.payload ? <pre data-testid="delivery-payload">{JSON.stringify(delivery.payload, null, 2)}</pre> : <p class="muted">Not shown: your access does not include what this event is about.</p>}
      <h3 class="exchange-heading">Answer</h3>
      {delivery.last_status_code === null ? (
        <p class="muted">{delivery.attempts === 0 ? 'Not sent yet.' : 'No answer (see the error above).'}</p>
      ) : (
        <>
          <p>
            HTTP <span data-testid="delivery-answer-status">{delivery.last_status_code}</span>
          </p>
          {delivery.last_response_body ? <pre data-testid="delivery-answer-body">{delivery.last_response_body}</pre> : <p class="muted">An empty body.</p>}
        </>
      )}
    </details>
  );
}
