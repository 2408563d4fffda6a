// Counters for what operators need to watch (refused connections, rejected device messages,
// applied reports), served at /metrics in the Prometheus text format.
export class Metrics {
  private readonly counters = new Map<string, { help: string; values: Map<string, number> }>();
  private readonly gauges = new Map<string, { help: string; read: () => number }>();

  /** Adds to a counter; `labels` become Prometheus labels. */
  count(name: string, help: string, labels: Record<string, string> = {}, by = 1): void {
    let counter = this.counters.get(name);
    if (!counter) this.counters.set(name, (counter = { help, values: new Map() }));
    const key = labelKey(labels);
    counter.values.set(key, (counter.values.get(key) ?? 0) + by);
  }

  gauge(name: string, help: string, read: () => number): void {
    this.gauges.set(name, { help, read });
  }

  /** The current value of a counter with exactly these labels (0 when never counted). */
  value(name: string, labels: Record<string, string> = {}): number {
    return this.counters.get(name)?.values.get(labelKey(labels)) ?? 0;
  }

  render(): string {
    const lines: string[] = [];
    for (const [name, { help, values }] of this.counters) {
      lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} counter`);
      for (const [labels, value] of values) lines.push(`${name}${labels ? `{${labels}}` : ''} ${value}`);
    }
    for (const [name, { help, read }] of this.gauges) {
      lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} gauge`, `${name} ${read()}`);
    }
    return `${lines.join('\n')}\n`;
  }
}

function labelKey(labels: Record<string, string>): string {
  return Object.entries(labels)
    .map(([label, value]) => `${label}="${value.replace(/["\\\n]/g, '_')}"`)
    .join(',');
}
