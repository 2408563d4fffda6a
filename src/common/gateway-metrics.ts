// The gateway's own figures on /metrics that its parts record as they work: here, how long a
// webhook attempt takes. The queue gauges and the SMS transitions are registered in
// src/use-cases/meter-gateway.ts, each gauge read by the module whose table it counts.
import type { Metrics } from './metrics.ts';

export const WEBHOOK_DELIVERY_DURATION = 'webhook_delivery_duration_seconds';
export const WEBHOOK_DELIVERY_DURATION_HELP = 'time from sending a webhook delivery to its answer (seconds), by outcome';

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
