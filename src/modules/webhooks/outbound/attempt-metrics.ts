// How long a webhook attempt takes, on /metrics: declared by the webhook sender's feature, recorded
// by the sender as it works.
import { LATENCY_BUCKETS, type Metrics } from '../../../common/metrics.ts';

export const WEBHOOK_DELIVERY_DURATION = 'webhook_delivery_duration_seconds';
export const WEBHOOK_DELIVERY_DURATION_HELP = 'time from sending a webhook delivery to its answer (seconds), by outcome';

/** Declares the histogram, so that /metrics shows it before the first attempt. */
export function declareWebhookAttemptMetrics(metrics: Metrics): void {
  metrics.declareHistogram(WEBHOOK_DELIVERY_DURATION, WEBHOOK_DELIVERY_DURATION_HELP, ['outcome'], LATENCY_BUCKETS);
}

/**
 * Times one webhook attempt, from the request going out to its answer read (or its failure), by
 * the outcome webhook_attempts_total counts: delivered (2xx), gone (410) or failed.
 */
export async function meterWebhookAttempt<T extends { code: number | null }>(metrics: Metrics, attempt: () => Promise<T>): Promise<T> {
  const started = performance.now();
  const result = await attempt();
  const { code } = result;
  const outcome = code !== null && code >= 200 && code < 300 ? 'delivered' : code === 410 ? 'gone' : 'failed';
  metrics.observe(WEBHOOK_DELIVERY_DURATION, WEBHOOK_DELIVERY_DURATION_HELP, { outcome }, (performance.now() - started) / 1000);
  return result;
}
