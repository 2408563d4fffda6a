// GET /metrics: the Prometheus page of a running gateway, scraped over HTTP before and after
// real traffic (API requests, a phone over MQTT taking and reporting a task, a signed webhook
// to a local receiver). The families README's "Metrics" table lists for HTTP, SMS, queues,
// webhooks, MQTT, the database pool and the process are on the page and move with the traffic,
// and every metric the Grafana dashboard in deploy/grafana/ asks for is one the gateway serves.
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import type { Gateway } from '../../src/gateway.ts';
import type { AttemptResult } from '../../src/modules/webhooks/repository.ts';
import { REPO_ROOT } from '../support/cli.ts';
import { ownDatabase, type EmptyDatabase } from '../support/empty-database.ts';
import { testDatabaseUrl } from '../support/environment.ts';
import { startGateway } from '../support/gateway.ts';
import { scrapeMetrics } from '../support/metrics.ts';
import { Receiver } from '../support/receiver.ts';
import { TaskPhone, UNPACED } from '../support/task-phone.ts';
import { createTenant, type Tenant } from '../support/tenant.ts';
import { createWebhook, webhookConfig } from '../support/webhooks.ts';

interface Page {
  contentType: string;
  /** Family name -> TYPE. */
  families: Map<string, string>;
  samples: { name: string; labels: Record<string, string>; value: number }[];
}

/** Fetches /metrics and reads the Prometheus text exposition format. */
async function scrape(gateway: Gateway): Promise<Page> {
  const response = await scrapeMetrics(`http://127.0.0.1:${gateway.httpPort}`);
  expect(response.status).to.equal(200);
  const text = await response.text();
  const families = new Map<string, string>();
  const samples: Page['samples'] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('# HELP ')) continue;
    const type = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (type) {
      families.set(type[1]!, type[2]!);
      continue;
    }
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!sample) throw new Error(`not a line of the exposition format: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, name, value] of (sample[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[name!] = value!;
    samples.push({ name: sample[1]!, labels, value: Number(sample[3]) });
  }
  return { contentType: response.headers.get('content-type') ?? '', families, samples };
}

/** The value of the sample with exactly these labels (0 when absent: a counter not yet counted). */
function value(page: Page, name: string, labels: Record<string, string> = {}): number {
  const wanted = JSON.stringify(Object.entries(labels).sort());
  return page.samples.find((sample) => sample.name === name && JSON.stringify(Object.entries(sample.labels).sort()) === wanted)?.value ?? 0;
}

function samplesOf(page: Page, name: string): Page['samples'] {
  return page.samples.filter((sample) => sample.name === name);
}

/** The metric names a PromQL expression reads (functions, keywords, label names and strings left out). */
function metricNames(expr: string): string[] {
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, '')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, '')
    .replace(/\[[^\]]*\]/g, '');
  const names: string[] = [];
  for (const match of stripped.matchAll(/([a-zA-Z_:][a-zA-Z0-9_:]*)(\s*\()?/g)) {
    if (match[2]) continue; // a function call
    if (['and', 'or', 'unless', 'bool', 'offset'].includes(match[1]!)) continue;
    names.push(match[1]!);
  }
  return names;
}

function dashboardExpressions(): string[] {
  const dashboard = JSON.parse(readFileSync(`${REPO_ROOT}/deploy/grafana/sms-gateway.json`, 'utf8')) as { panels: unknown[] };
  const expressions: string[] = [];
  const visit = (node: unknown) => {
    if (Array.isArray(node)) node.forEach(visit);
    else if (node && typeof node === 'object') {
      for (const [key, child] of Object.entries(node)) {
        if (key === 'expr' && typeof child === 'string') expressions.push(child);
        else visit(child);
      }
    }
  };
  visit(dashboard.panels);
  return expressions;
}

describe('GET /metrics', function () {
  this.timeout(30_000);

  let gateway: Gateway;
  let receiver: Receiver;
  let tenant: Tenant;
  let phone: TaskPhone | undefined;
  let first: Page;
  let waitingBeforeSend: Page;
  let waitingAfterSend: Page;
  let inFlight: Page;
  let last: Page;
  let smsId: string;
  let database: EmptyDatabase | undefined;

  before(async function () {
    this.timeout(60_000);
    // The queue gauges count every account's SMS: on the suite's shared PostgreSQL database, what
    // earlier test files left waiting could expire between two scrapes. This one is the test's own.
    if (testDatabaseUrl()) database = await ownDatabase('metrics');
    gateway = await startGateway({ webhooks: webhookConfig(), ...(database ? { databaseUrl: database.url } : {}) });
    receiver = new Receiver();
    await receiver.start();
    tenant = await createTenant(gateway);
    const { webhook } = await createWebhook(tenant, receiver.url, ['sms.status_changed']);
    first = await scrape(gateway);

    // An SMS with no phone connected waits in its account's pool.
    waitingBeforeSend = await scrape(gateway);
    const created = await tenant.api.post('/sms', { phone: '+79161234567', message: 'metrics' });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    smsId = created.body.id;
    waitingAfterSend = await scrape(gateway);
    expect((await tenant.api.get(`/sms/${smsId}`)).status).to.equal(200);
    expect((await tenant.api.get('/sms/not-an-id')).status).to.equal(400);
    expect((await tenant.root.get('/no/such/path')).status).to.equal(404);

    // A phone takes it (in flight), then reports it processing and sent: two webhooks go out.
    phone = await TaskPhone.connect(gateway, tenant, UNPACED);
    await phone.until(1);
    inFlight = await scrape(gateway);
    let delivered = 0;
    const twoDelivered = new Promise<void>((resolve) => {
      const count = (results: AttemptResult[]) => {
        delivered += results.filter((result) => result.webhookId === webhook.id && result.status === 'delivered').length;
        if (delivered < 2) return;
        gateway.services.webhookSender.off('recorded', count);
        resolve();
      };
      gateway.services.webhookSender.on('recorded', count);
    });
    await phone.sendAll();
    await twoDelivered;
    last = await scrape(gateway);
  });

  after(async () => {
    await phone?.stop();
    await receiver?.stop?.();
    await gateway?.stop();
    await database?.drop();
  });

  it('then it answers in the Prometheus text format, version 0.0.4', () => {
    expect(last.contentType).to.match(/^text\/plain; version=0\.0\.4/);
  });

  it('then HTTP requests are counted and timed by method, route template and status, never by the raw path', () => {
    const created = { method: 'POST', route: '/api/ext/v1/sms', status: '201' };
    expect(value(last, 'http_requests_total', created) - value(first, 'http_requests_total', created)).to.equal(1);
    expect(value(last, 'http_requests_total', { method: 'GET', route: '/api/ext/v1/sms/:id', status: '200' })).to.be.at.least(1);
    expect(value(last, 'http_requests_total', { method: 'GET', route: '/api/ext/v1/sms/:id', status: '400' })).to.be.at.least(1);
    expect(value(last, 'http_requests_total', { method: 'GET', route: 'unmatched', status: '404' })).to.be.at.least(1);
    expect(last.families.get('http_request_duration_seconds')).to.equal('histogram');
    expect(value(last, 'http_request_duration_seconds_count', created)).to.be.at.least(1);
    expect(value(last, 'http_request_duration_seconds_bucket', { ...created, le: '+Inf' })).to.equal(value(last, 'http_request_duration_seconds_count', created));
    const routes = samplesOf(last, 'http_requests_total').map((sample) => sample.labels.route!);
    for (const route of routes) {
      expect(route, 'a route label carries no id').not.to.contain(smsId);
      expect(route).not.to.contain('not-an-id');
      expect(route).not.to.contain('/no/such/path');
    }
  });

  it('then each SMS status transition is counted by the status left and the status reached', () => {
    for (const [from, to] of [
      ['pending', 'processing'],
      ['processing', 'sent'],
    ]) {
      const labels = { from: from!, to: to! };
      expect(value(last, 'sms_status_transitions_total', labels) - value(first, 'sms_status_transitions_total', labels), `${from} -> ${to}`).to.equal(1);
    }
  });

  it('then the queue depth shows the SMS waiting in the pool, then in flight on the device that took it, then neither', () => {
    expect(value(waitingAfterSend, 'sms_waiting', { queue: 'pool' }) - value(waitingBeforeSend, 'sms_waiting', { queue: 'pool' })).to.equal(1);
    expect(samplesOf(last, 'sms_waiting').map((sample) => sample.labels.queue)).to.have.members(['pool', 'device']);
    expect(value(inFlight, 'sms_in_flight', { device: phone!.id })).to.equal(1);
    expect(value(last, 'sms_in_flight', { device: phone!.id }), 'sent: no longer in flight').to.equal(0);
  });

  it('then webhook attempts, their latency and the backlog are shown', () => {
    const ok = { outcome: 'delivered' };
    expect(value(last, 'webhook_attempts_total', ok) - value(first, 'webhook_attempts_total', ok)).to.be.at.least(2);
    expect(last.families.get('webhook_delivery_duration_seconds')).to.equal('histogram');
    expect(value(last, 'webhook_delivery_duration_seconds_count', ok) - value(first, 'webhook_delivery_duration_seconds_count', ok)).to.be.at.least(2);
    expect(value(last, 'webhook_delivery_duration_seconds_sum', ok)).to.be.above(0);
    expect(samplesOf(last, 'webhook_backlog').map((sample) => sample.labels.state)).to.have.members(['due', 'scheduled', 'held']);
    expect(samplesOf(last, 'webhook_backlog_oldest_due_seconds')).to.have.length(1);
  });

  it('then MQTT connections and packets in and out are counted', () => {
    const moved = (name: string, type: string) => value(last, name, { type }) - value(first, name, { type });
    expect(value(inFlight, 'mqtt_connected_clients')).to.be.at.least(1);
    expect(moved('mqtt_packets_received_total', 'connect')).to.be.at.least(1);
    expect(moved('mqtt_packets_received_total', 'subscribe')).to.be.at.least(1);
    expect(moved('mqtt_packets_received_total', 'publish'), 'two status reports').to.be.at.least(2);
    expect(moved('mqtt_packets_sent_total', 'connack')).to.be.at.least(1);
    expect(moved('mqtt_packets_sent_total', 'publish'), 'the task and the settings').to.be.at.least(2);
  });

  it('then the database pool and the process (event-loop lag, memory) are shown', () => {
    expect(samplesOf(last, 'db_pool_connections').map((sample) => sample.labels.state)).to.have.members(['used', 'free']);
    expect(value(last, 'db_pool_connections', { state: 'used' }) + value(last, 'db_pool_connections', { state: 'free' })).to.be.at.least(1);
    expect(samplesOf(last, 'db_pool_pending_acquires')).to.have.length(1);
    expect(samplesOf(last, 'nodejs_eventloop_lag_p99_seconds')).to.have.length(1);
    expect(value(last, 'process_resident_memory_bytes')).to.be.above(0);
  });

  it('then every metric the Grafana dashboard reads is one the gateway serves', () => {
    const expressions = dashboardExpressions();
    expect(expressions.length).to.be.at.least(10);
    const names = new Set(expressions.flatMap(metricNames).map((name) => name.replace(/_(bucket|sum|count)$/, '')));
    expect(names.size).to.be.at.least(10);
    for (const name of names) expect(last.families.has(name), `${name} (read by the dashboard) is on /metrics`).to.equal(true);
  });

  it('when a second gateway runs in the same process, then its page shows none of the first one\'s traffic', async function () {
    this.timeout(60_000);
    const second = await startGateway();
    try {
      const page = await scrape(second);
      expect(value(page, 'http_requests_total', { method: 'POST', route: '/api/ext/v1/sms', status: '201' })).to.equal(0);
      expect(value(page, 'sms_status_transitions_total', { from: 'pending', to: 'processing' })).to.equal(0);
    } finally {
      await second.stop();
    }
  });
});
