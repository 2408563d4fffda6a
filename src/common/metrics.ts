// What operators watch, served at /metrics in the Prometheus text format (prom-client).
//
// One registry per gateway, never prom-client's global one: tests run several gateways in one
// process, and each must show only its own traffic. The figures of the process itself (event-loop
// lag, heap, CPU, garbage collection) exist once per process whatever the number of gateways, so
// they live in one registry of their own that every gateway appends to its page.
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry, type Metric } from 'prom-client';
import type { Logger } from './logger.ts';

export type Labels = Record<string, string>;

/** One labelled value of a gauge read at scrape time. */
export interface Sample {
  labels: Labels;
  value: number;
}

/** Seconds; from a fast local answer to a slow remote one (webhook receivers time out at 10 s by default). */
export const LATENCY_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export class Metrics {
  private readonly registry = new Registry();
  private readonly counters = new Map<string, Counter>();
  private readonly histograms = new Map<string, Histogram>();
  /**
   * Every count also kept here: prom-client reads its values asynchronously, and callers (the
   * tests among them) ask for one count in the middle of synchronous code.
   */
  private readonly counted = new Map<string, number>();
  private readonly readers = new Map<string, () => number>();
  /** The process's metrics, seen through a registry of this gateway's own so that they carry its labels. */
  private readonly processView = new Registry();

  /**
   * `defaultLabels`: on every sample of the page, the process's figures included (the node id:
   * several nodes scraped into one Prometheus must be told apart even when they share a host).
   */
  constructor(defaultLabels: Labels = {}) {
    // The process's figures start with the first gateway, not at the first scrape: event-loop
    // lag and GC are sampled between scrapes.
    // getMetricsAsArray hands back the metric objects themselves, typed as their plain shape.
    for (const metric of processRegistry().getMetricsAsArray()) this.processView.registerMetric(metric as unknown as Metric);
    this.registry.setDefaultLabels(defaultLabels);
    this.processView.setDefaultLabels(defaultLabels);
  }

  /** The Content-Type of what render() returns. */
  get contentType(): string {
    return this.registry.contentType;
  }

  /**
   * Makes a counter exist with these labels before anything is counted, so that it is on the
   * page (HELP and TYPE, no samples) from the start; dashboards then find every family they name.
   */
  declareCounter(name: string, help: string, labelNames: string[] = []): void {
    this.counter(name, help, labelNames);
  }

  /** Adds to a counter; `labels` become Prometheus labels (the same names at every call). */
  count(name: string, help: string, labels: Labels = {}, by = 1): void {
    this.counter(name, help, Object.keys(labels)).inc(labels, by);
    const key = sampleKey(name, labels);
    this.counted.set(key, (this.counted.get(key) ?? 0) + by);
  }

  /** A gauge read synchronously at every scrape. */
  gauge(name: string, help: string, read: () => number): void {
    this.replace(name);
    this.readers.set(name, read);
    new Gauge({
      name,
      help,
      registers: [this.registry],
      collect() {
        this.set(read());
      },
    });
  }

  /**
   * A labelled gauge read at every scrape by `read` (a database query, say). When the read fails
   * the family is shown without samples rather than with old values; `onError` hears why.
   */
  sampledGauge(name: string, help: string, labelNames: string[], read: () => Promise<Sample[]>, onError: (error: unknown) => void): void {
    this.replace(name);
    new Gauge({
      name,
      help,
      labelNames,
      registers: [this.registry],
      async collect() {
        this.reset();
        try {
          for (const sample of await read()) this.set(sample.labels, sample.value);
        } catch (error) {
          onError(error);
        }
      },
    });
  }

  /** Makes a histogram exist before its first observation (see declareCounter). */
  declareHistogram(name: string, help: string, labelNames: string[] = [], buckets = LATENCY_BUCKETS): void {
    this.histogram(name, help, labelNames, buckets);
  }

  /** Records one observation (seconds, for durations) in a histogram. */
  observe(name: string, help: string, labels: Labels, value: number, buckets = LATENCY_BUCKETS): void {
    this.histogram(name, help, Object.keys(labels), buckets).observe(labels, value);
  }

  /** The current value of a counter with exactly these labels (0 when never counted), or of a gauge read synchronously. */
  value(name: string, labels: Labels = {}): number {
    const read = this.readers.get(name);
    if (read) return read();
    return this.counted.get(sampleKey(name, labels)) ?? 0;
  }

  /** The whole page: this gateway's metrics, then the process's. */
  async render(): Promise<string> {
    const [own, process] = await Promise.all([this.registry.metrics(), this.processView.metrics()]);
    return `${own.trimEnd()}\n${process}`;
  }

  private counter(name: string, help: string, labelNames: string[]): Counter {
    let counter = this.counters.get(name);
    if (!counter) {
      counter = new Counter({ name, help, labelNames, registers: [this.registry] });
      this.counters.set(name, counter);
    }
    return counter;
  }

  private histogram(name: string, help: string, labelNames: string[], buckets: number[]): Histogram {
    let histogram = this.histograms.get(name);
    if (!histogram) {
      histogram = new Histogram({ name, help, labelNames, buckets, registers: [this.registry] });
      this.histograms.set(name, histogram);
    }
    return histogram;
  }

  /** A gauge registered again (a broker restarted on the same services) replaces the old one. */
  private replace(name: string): void {
    this.registry.removeSingleMetric(name);
    this.readers.delete(name);
  }
}

let processMetrics: Registry | undefined;

/** Created on first use: collecting starts timers and observers, once per process. */
function processRegistry(): Registry {
  if (!processMetrics) {
    processMetrics = new Registry();
    collectDefaultMetrics({ register: processMetrics });
  }
  return processMetrics;
}

function sampleKey(name: string, labels: Labels): string {
  // Most counts carry no label or one (several per SMS): those need no sorting.
  const names = Object.keys(labels);
  if (names.length === 0) return `${name}{}`;
  if (names.length === 1) return `${name}{${names[0]}=${JSON.stringify(labels[names[0]!])}}`;
  const pairs = Object.entries(labels)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([label, value]) => `${label}=${JSON.stringify(value)}`);
  return `${name}{${pairs.join(',')}}`;
}

/** What a gauge read when scraped does when the read fails: a warning naming the gauge (it shows no samples meanwhile). */
export function gaugeReadFailed(logger: Logger): (name: string) => (error: unknown) => void {
  return (name) => (error) => logger.warn({ err: error }, `metrics: reading ${name} failed`);
}
