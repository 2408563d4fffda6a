// The deliveries of a disabled webhook wait, kept for when it is switched back on (outbox.ts),
// but no claim may read them meanwhile: a receiver that was disabled during a burst would
// otherwise leave thousands of due rows that every claim reads past and skips. So they are
// parked: due at 'infinity', out of the claim's reach (it reads rows due by now), and due now
// again when the webhook is switched on.
// - A delivery written for a disabled webhook is parked as it is written (outbox.ts).
// - The sweep parks what became due on a disabled webhook since: deliveries that were waiting
//   for a retry, or in flight, when it was disabled, or written while it was being disabled.
// - Switching a webhook on makes its waiting deliveries due at once (WebhookService.update, with
//   resumeWaiting). A delivery parked by a sweep or a writer that read the webhook as disabled
//   just before it was switched on is found by the next sweep, which looks at the webhooks
//   changed in the last minute.
// Both sweeps start from the webhooks (few) and read each one's deliveries through the index of
// pending deliveries by webhook and time ("offset 0" keeps each probe apart whatever the
// statistics say): neither reads the held deliveries of webhooks it has nothing to do for.
// The sweeps' statements are in repository.ts beside this file.

export const PARKED = 'infinity';

/** Whether a delivery's next attempt is a time at all (a parked one waits for its webhook instead). */
export function isScheduled(nextAttemptAt: Date | number): boolean {
  return Number.isFinite(+nextAttemptAt);
}
