// webhooks' own event: sent on request to one webhook, whatever it subscribes to.
import { envelope, TEST_EVENT, type EventEnvelope } from '../event-contract.ts';

/** A test event: proves the receiver gets signed events from the gateway and answers them. */
export function webhookTest(accountId: string, webhook: { id: string; url: string }): EventEnvelope {
  return envelope(TEST_EVENT, accountId, {
    webhook: { id: webhook.id, url: webhook.url },
    message: 'A test event sent on request. A receiver answers it with 2xx like any other event.',
  });
}
