// Counts every connection the broker refuses or cuts, and logs it once per client address and
// reason per interval, with how many were refused meanwhile: a flood is one log line a minute,
// not one per packet, and the counter still shows its size.
import type { Logger } from '../src/common/logger.ts';
import type { Metrics } from '../src/common/metrics.ts';

export const REFUSED_METRIC = 'mqtt_connections_refused_total';
const REFUSED_HELP = 'MQTT connections refused or closed before or without authentication, by reason';

const LOG_INTERVAL_MS = 60_000;
/** Address-and-reason pairs remembered; past it the oldest is forgotten (and may log again). */
const MAX_REMEMBERED = 10_000;

export type ConnectionRefusal =
  | 'too_many_connections'
  | 'max_connections'
  | 'packet_too_large'
  | 'malformed_length'
  | 'connect_timeout'
  | 'auth_throttled'
  | 'bad_proxy_header'
  | 'waiting_room_full'
  | 'pushed_out_before_connect';

export class RefusalLog {
  /** "address reason" -> when it was last logged, and the refusals not logged since. */
  private readonly logged = new Map<string, { at: number; unlogged: number }>();

  constructor(
    private readonly metrics: Metrics,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  refused(address: string, reason: ConnectionRefusal): void {
    this.metrics.count(REFUSED_METRIC, REFUSED_HELP, { reason });
    const unlogged = this.due(`${address} ${reason}`);
    if (unlogged !== undefined) this.logger.warn({ address, reason, refusedSinceLastLog: unlogged }, 'mqtt connection refused');
  }

  /**
   * A connection refused because the broker holds MQTT_MAX_CONNECTIONS already. A burst comes from
   * many addresses at once: it is logged as one, once per interval, not per address.
   */
  refusedAtCapacity(max: number): void {
    this.metrics.count(REFUSED_METRIC, REFUSED_HELP, { reason: 'max_connections' });
    const unlogged = this.due('max_connections');
    if (unlogged !== undefined) {
      this.logger.warn({ reason: 'max_connections', max, refusedSinceLastLog: unlogged }, 'mqtt connections refused: the broker holds all it may (MQTT_MAX_CONNECTIONS)');
    }
  }

  /**
   * Whether a refusal under `key` is to be logged now (the first in an interval is): then how many
   * went unlogged since the last line; undefined while the interval lasts.
   */
  private due(key: string): number | undefined {
    const now = this.now();
    const last = this.logged.get(key);
    if (last && now - last.at < LOG_INTERVAL_MS) {
      last.unlogged++;
      return undefined;
    }
    this.logged.delete(key);
    if (this.logged.size >= MAX_REMEMBERED) this.logged.delete(this.logged.keys().next().value!);
    this.logged.set(key, { at: now, unlogged: 0 });
    return last?.unlogged ?? 0;
  }
}
