// A gateway that throttles failed authentications at small limits a test can reach, on a clock
// the test moves: windows, blocks and locks end when the test says, never by waiting. Shared by
// the throttle tests of each channel (API keys, panel logins, device tokens).
import { randomBytes } from 'node:crypto';
import { ManualClock } from '../../src/common/clock.ts';
import type { AuthThrottleConfig, Config } from '../../src/config.ts';
import { useGateway, type GatewayFixture, type UseGatewayOptions } from './use-gateway.ts';

/** The limits the throttle tests count against (AUTH_FAILURE_LIMIT and the rest, made small). */
export const TEST_THROTTLE = {
  failureLimit: 30,
  windowMs: 60_000,
  hardLimit: 60,
  credentialFailureLimit: 5,
  credentialWindowMs: 900_000,
  mqttRefusalDelayMs: 0,
} satisfies Required<AuthThrottleConfig>;

/** A well-formed API key nobody holds, with a prefix of its own (so that no prefix's count is reached). */
export function unknownKey(): string {
  return `sgw_${randomBytes(5).toString('hex')}_${randomBytes(32).toString('base64url')}`;
}

export interface ThrottledGateway {
  fx: GatewayFixture;
  /** The gateway's clock: move it past a window to end what the window counted. */
  clock: ManualClock;
  /** A counter of the gateway's metrics (auth_failures_total, auth_throttled_total). */
  metric(name: string, labels: Record<string, string>): number;
}

/**
 * useGateway with the throttle at TEST_THROTTLE, changed by `limits`, on a ManualClock. After each
 * test the clock moves past every window, so the next starts with no count, block or lock left.
 */
export function useThrottledGateway(limits: Partial<AuthThrottleConfig> = {}, config: Partial<Config> = {}, options: Omit<UseGatewayOptions, 'config' | 'clock'> = {}): ThrottledGateway {
  const clock = new ManualClock();
  const authThrottle = { ...TEST_THROTTLE, ...limits };
  const fx = useGateway({ ...options, clock, config: { ...config, authThrottle } });
  afterEach(() => clock.advance(2 * Math.max(authThrottle.windowMs, authThrottle.credentialWindowMs)));
  return { fx, clock, metric: (name, labels) => fx.gateway.services.metrics.value(name, labels) };
}
