// Throttling of failed authentications: it slows down what fails and leaves alone what succeeds.
//
// Failures are counted in three channels that never share a count: API keys (HTTP bearer keys,
// and operators' keys over MQTT), panel logins (email and password), and device logins (a
// phone's id and token, over MQTT or HTTP uploads). A stale script hammering the API with a
// revoked key behind an office NAT must not take that office's phones off the air, nor lock its
// people out of the panel. Within a channel, failures are counted twice: per client address and
// per credential (the key's prefix, the login's email, the device id), so that neither many
// guesses from one address nor a few guesses each from many addresses go unnoticed.
//
// What a count does, per client address:
// - past AUTH_FAILURE_LIMIT within AUTH_FAILURE_WINDOW the address is throttled: a credential it
//   presents is still checked, and a correct one is served as always (a colleague's valid key
//   behind the same NAT keeps working); a wrong one is answered 429 with Retry-After (CONNACK 5
//   after a delay) instead of 401, telling the client to back off;
// - past AUTH_FAILURE_HARD_LIMIT (10x by default) the address is blocked for the window: nothing
//   it sends is checked, valid credentials included. Checking costs a key lookup or a password
//   hash; an address this far past the limit is a guesser, and refusing it unchecked keeps a
//   brute force costing the gateway next to nothing. The checks an address can make before that
//   are bounded by the hard limit, per window.
// Per credential:
// - a login (email) with AUTH_CREDENTIAL_FAILURE_LIMIT failures within
//   AUTH_CREDENTIAL_FAILURE_WINDOW is locked for that window, from every address, right password
//   included: a password can be guessed, and a guesser spreading over many addresses would
//   otherwise get the hard limit's worth of tries from each. The price is that a guesser can keep
//   one user out of the panel (not out of the API: keys are another channel), which is logged;
// - an SMPP system_id with as many failures is locked for that window only towards the addresses
//   that failed with it: from them it is refused unchecked, right password included, while an
//   address that has not failed with it is still checked, and a right password binds. An ESME
//   is a server with a fixed address, not a person on the move, and a lock from every address
//   would let anyone who knows a system_id (it is no secret: it sits in every bind) keep its
//   ESME off for good, a dozen wrong binds every 15 minutes. A guesser still gets one try per
//   address and window once the lock is on: with 46 bits of password, no number of addresses
//   makes that a way in;
// - an API key prefix or a device id is only throttled, never locked: their secrets are 256 random
//   bits, which no rate of guessing finds, and a lock would let anyone who knows a key's prefix
//   or a phone's id (a re-paired phone's old installation, still retrying) shut it out.
//
// The tables are bounded (MAX_TRACKED per table and channel, about 100 bytes an entry).
import type { Clock } from './clock.ts';
import type { Logger } from './logger.ts';
import type { Metrics } from './metrics.ts';
import { clientAddressKey } from './client-address.ts';
import { FailureCounts, type FailureStep } from './failure-counts.ts';

export interface AuthThrottleLimits {
  /** Failed authentications from one address within `windowMs` that throttle it. */
  failureLimit: number;
  /** The window an address's failures are counted in, and how long a throttle or a block lasts. */
  windowMs: number;
  /** Failures from one address that block it (nothing checked); absent: 10 x failureLimit. */
  hardLimit?: number;
  /** Failures of one credential (from any address) within `credentialWindowMs`; absent: 10. */
  credentialFailureLimit?: number;
  /** The window a credential's failures are counted in, and how long a login stays locked; absent: 15 minutes. */
  credentialWindowMs?: number;
}

/** api_key: bearer and operator keys; login: panel passwords; device: phones' tokens; smpp: ESMEs' binds. */
export type AuthChannel = 'api_key' | 'login' | 'device' | 'smpp';

export const AUTH_CHANNELS: readonly AuthChannel[] = ['api_key', 'login', 'device', 'smpp'];

/** One authentication: its channel, its client address, and what names the credential (none when malformed). */
export interface AuthAttempt {
  channel: AuthChannel;
  address: string | undefined;
  credential?: string | undefined;
}

/** About 100 bytes each: a table stays around a megabyte however many addresses guess. */
export const MAX_TRACKED = 10_000;
export const DEFAULT_HARD_LIMIT_FACTOR = 10;
export const DEFAULT_CREDENTIAL_FAILURE_LIMIT = 10;
export const DEFAULT_CREDENTIAL_WINDOW_MS = 15 * 60_000;

/** Channels whose credential is locked when its count is reached (a guessable password). */
// An SMPP password has 8 characters (SMPP's limit): guessable like a person's, so locked like one.
const LOCKED_CREDENTIALS: ReadonlySet<AuthChannel> = new Set(['login', 'smpp']);

/** Locked channels whose lock refuses only the addresses that failed with the credential. */
const LOCKED_FOR_FAILED_ADDRESSES: ReadonlySet<AuthChannel> = new Set(['smpp']);

type Tables = Record<AuthChannel, FailureCounts>;

export class AuthThrottle {
  private readonly byAddress: Tables;
  private readonly byCredential: Tables;
  /** Per credential and address, in the channels locked for failed addresses only: one failure marks the pair for the credential window. */
  private readonly failedPairs: FailureCounts;
  /** When each channel last had a failure (the clock's ms); absent: never. */
  private readonly lastFailureAt: Partial<Record<AuthChannel, number>> = {};
  /** No block or lock outlasts the failure that set it by more than this. */
  private readonly longestBlockMs: number;

  constructor(
    limits: AuthThrottleLimits,
    private readonly clock: Clock,
    private readonly observe: { metrics: Metrics; logger: Logger },
    maxTracked = MAX_TRACKED,
  ) {
    const hardLimit = limits.hardLimit ?? DEFAULT_HARD_LIMIT_FACTOR * limits.failureLimit;
    const credentialLimit = limits.credentialFailureLimit ?? DEFAULT_CREDENTIAL_FAILURE_LIMIT;
    const credentialWindowMs = limits.credentialWindowMs ?? DEFAULT_CREDENTIAL_WINDOW_MS;
    this.longestBlockMs = Math.max(limits.windowMs, credentialWindowMs);
    const tables = (make: (channel: AuthChannel) => FailureCounts): Tables =>
      Object.fromEntries(AUTH_CHANNELS.map((channel) => [channel, make(channel)])) as Tables;
    this.byAddress = tables(() => new FailureCounts({ limit: limits.failureLimit, blockAt: Math.max(hardLimit, limits.failureLimit), windowMs: limits.windowMs }, clock, maxTracked));
    this.byCredential = tables(
      (channel) =>
        new FailureCounts(
          { limit: credentialLimit, blockAt: LOCKED_CREDENTIALS.has(channel) ? credentialLimit : Infinity, windowMs: credentialWindowMs },
          clock,
          maxTracked,
        ),
    );
    // Marked as blocked, so that a flood of new pairs passes over the marked ones when it evicts.
    this.failedPairs = new FailureCounts({ limit: 1, blockAt: 1, windowMs: credentialWindowMs }, clock, maxTracked);
  }

  /**
   * Before the credential is checked: how long (ms) the attempt is refused unchecked, because its
   * address is blocked or its login locked; 0 when it is to be checked. Counts a refusal.
   */
  refusedFor(attempt: AuthAttempt): number {
    // Every request asks, and nearly always nothing in its channel has failed lately: then nothing
    // there can be blocked (a block lasts a window from the failure that set it), and the client's
    // address need not even be worked out.
    const last = this.lastFailureAt[attempt.channel];
    if (last === undefined || this.clock.now() - last >= this.longestBlockMs) return 0;
    const address = this.byAddress[attempt.channel].blockedFor(clientAddressKey(attempt.address));
    const credential = this.lockedFor(attempt);
    if (address === 0 && credential === 0) return 0;
    this.observe.metrics.count('auth_throttled_total', 'authentications refused unchecked: the address is blocked or the login locked', {
      channel: attempt.channel,
      by: address > 0 ? 'address' : 'credential',
    });
    return Math.max(address, credential);
  }

  /**
   * Records a failed authentication. Returns how long (ms) the client should wait before it tries
   * again: past a limit, the failure is answered 429 (CONNACK 5 after a delay) with that wait
   * instead of a plain 401; 0 for a plain failure.
   */
  failed(attempt: AuthAttempt): number {
    const { channel } = attempt;
    this.lastFailureAt[channel] = this.clock.now();
    const addressKey = clientAddressKey(attempt.address);
    this.observe.metrics.count('auth_failures_total', 'failed authentications (wrong or unknown key, token or password)', { channel });
    this.announce(this.byAddress[channel].add(addressKey), channel, 'address', addressKey);
    let wait = this.byAddress[channel].throttledFor(addressKey);
    if (attempt.credential !== undefined) {
      this.announce(this.byCredential[channel].add(attempt.credential), channel, 'credential', attempt.credential);
      wait = Math.max(wait, this.byCredential[channel].throttledFor(attempt.credential));
      if (LOCKED_FOR_FAILED_ADDRESSES.has(channel)) this.failedPairs.add(pairKey(channel, attempt.credential, addressKey));
    }
    return wait;
  }

  /** How long (ms) the attempt's credential stays locked towards its address; 0 when it is checked. */
  private lockedFor(attempt: AuthAttempt): number {
    if (attempt.credential === undefined) return 0;
    const locked = this.byCredential[attempt.channel].blockedFor(attempt.credential);
    if (locked === 0 || !LOCKED_FOR_FAILED_ADDRESSES.has(attempt.channel)) return locked;
    const failedHere = this.failedPairs.blockedFor(pairKey(attempt.channel, attempt.credential, clientAddressKey(attempt.address))) > 0;
    return failedHere ? locked : 0;
  }

  /** Whether the address is throttled or blocked in the channel (for tests and the drills). */
  throttledFor(address: string | undefined, channel: AuthChannel): number {
    return this.byAddress[channel].throttledFor(clientAddressKey(address));
  }

  /** Addresses tracked now in a channel (for tests of the memory bound). */
  size(channel: AuthChannel): number {
    return this.byAddress[channel].size;
  }

  /** One log line when a count crosses a threshold, never one per failure. */
  private announce(step: FailureStep, channel: AuthChannel, by: 'address' | 'credential', key: string): void {
    if (!step) return;
    this.observe.metrics.count('auth_throttle_started_total', 'client addresses or credentials throttled or blocked for failed authentications', { channel, by, step });
    const { logger } = this.observe;
    if (by === 'address') {
      const what = step === 'blocked' ? 'blocked: nothing it sends is checked' : 'throttled: its failures are answered 429, valid credentials still work';
      logger.warn({ address: key, channel }, `client address ${what}`);
    } else if (channel === 'login') {
      // The key is derived from the email's hash: it names nobody, so it is left out.
      logger.warn({ channel }, 'logins to one user locked: too many wrong passwords');
    } else if (channel === 'smpp') {
      // A system_id is no secret (it is sent in clear in every bind): it helps find the ESME.
      logger.warn({ channel, credential: key }, 'SMPP system_id locked towards the addresses that failed with it: too many wrong passwords');
    } else {
      // A key prefix is no secret (it is shown in key lists); a device id neither: both help find the stale client.
      logger.warn({ channel, credential: key }, `${channel === 'device' ? 'device' : 'API key'} throttled: too many failures with it`);
    }
  }
}

/** The pair's key: the channel, the credential and the address, which no separator can run into each other. */
function pairKey(channel: AuthChannel, credential: string, addressKey: string): string {
  return JSON.stringify([channel, credential, addressKey]);
}
