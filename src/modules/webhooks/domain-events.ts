// What the webhooks module announces to the rest of the gateway (src/events/domain-events.ts).
// Not to be confused with event-contract.ts: the webhook events clients receive.
export interface WebhooksEvents {
  /** One of the account's webhooks was created, changed or deleted. */
  'webhooks.changed': { accountId: string };
  /** Deliveries were written or brought back outside the usual paths (a test event, a retry, a webhook switched on): the sender should look now. */
  'webhooks.deliveries_due': Record<string, never>;
}
