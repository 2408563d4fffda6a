// Reconnecting as a device must: after any drop and after any refused CONNECT,
// with exponential backoff and jitter. MQTT.js on its own retries a dropped connection at a fixed
// period and never retries a CONNECT the server refused (CONNACK 3 "server unavailable", sent
// while the gateway's database is down, or 5): phones stayed offline for good after an outage.
import type { MqttClient } from 'mqtt';

export interface BackoffPolicy {
  /** Delay before the first attempt after a drop, in ms. */
  firstMs: number;
  /** The delay doubles per failed attempt up to this. */
  maxMs: number;
  /** A connection that lasted this long proves the server healthy: the next drop starts over at firstMs. */
  stableAfterMs: number;
}

export const DEFAULT_BACKOFF: BackoffPolicy = { firstMs: 1_000, maxMs: 60_000, stableAfterMs: 30_000 };

/** Delays of successive attempts: doubling, capped, each with jitter so that a fleet spreads out. */
export class ReconnectBackoff {
  private attempt = 0;
  private connectedAt: number | undefined;

  constructor(private readonly policy: BackoffPolicy) {}

  /** The connection is up (CONNACK accepted). */
  connected(now = Date.now()): void {
    this.connectedAt = now;
  }

  /** The connection went down: starts over if it had lasted. */
  disconnected(now = Date.now()): void {
    if (this.connectedAt !== undefined && now - this.connectedAt >= this.policy.stableAfterMs) this.attempt = 0;
    this.connectedAt = undefined;
  }

  /** The delay before the next attempt: between half and all of the doubled delay ("equal jitter"). */
  next(): number {
    const ceiling = Math.min(this.policy.maxMs, this.policy.firstMs * 2 ** Math.min(this.attempt, 30));
    this.attempt++;
    return Math.round(ceiling / 2 + Math.random() * (ceiling / 2));
  }
}

/**
 * Makes `client` reconnect after drops and refusals with `backoff`. MQTT.js schedules attempts
 * with a fixed-period interval that it arms only when none is running, reading the period from
 * its options as it arms it: each attempt stops the running interval and sets the period of the
 * next, which the attempt's failure (a close, or a refused CONNACK with reconnectOnConnackError)
 * arms. `onAttempt` hears every attempt (for counts).
 */
export function reconnectWithBackoff(client: MqttClient, backoff: ReconnectBackoff, onAttempt?: () => void): void {
  client.options.reconnectOnConnackError = true;
  client.on('connect', () => backoff.connected());
  // Emitted once when a connection (or the first attempt) is lost, before the first retry is armed.
  client.on('offline', () => {
    backoff.disconnected();
    client.options.reconnectPeriod = backoff.next();
  });
  client.on('reconnect', () => {
    (client as unknown as { _clearReconnect(): void })._clearReconnect();
    client.options.reconnectPeriod = backoff.next();
    onAttempt?.();
  });
}
