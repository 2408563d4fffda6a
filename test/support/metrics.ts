// Scraping a test gateway's /metrics: it is served only to a scrape carrying METRICS_TOKEN (or on
// a port of its own), so the test gateways, in this process or spawned, all have this one.

/** The METRICS_TOKEN of test gateways. */
export const TEST_METRICS_TOKEN = 'test-metrics-token-of-the-suite';

/** GET /metrics of the gateway at `baseUrl` (http://host:port), with the test gateways' token. */
export function scrapeMetrics(baseUrl: string): Promise<Response> {
  return fetch(`${baseUrl}/metrics`, { headers: { authorization: `Bearer ${TEST_METRICS_TOKEN}` } });
}
