// What the agent says about its connection to the gateway: why an attempt failed, once for as
// long as the reason stays the same, while it keeps trying quietly with backoff. A phone that
// cannot connect for a week (a certificate it does not trust, a token replaced) leaves one line
// that says what to do, not one "reconnecting" line a minute; a new reason is said again, and
// so is the next failure after the agent was connected.
import type { AgentLogger } from './log.ts';
import { TlsTrustError } from './tls-trust.ts';

export interface ConnectionFailure {
  /** Two failures with the same key are the same problem: only the first is logged. */
  key: string;
  level: 'warn' | 'error';
  message: string;
  fields: Record<string, unknown>;
}

/** Why an attempt failed, from the error MQTT.js reported (none: the connection just closed). */
export function describeFailure(error: Error | undefined): ConnectionFailure {
  if (error instanceof TlsTrustError) {
    return { key: `tls:${error.reason}`, level: 'error', message: `the gateway's TLS certificate is not trusted: ${error.message}`, fields: { reason: error.reason, ...error.certificate } };
  }
  const code = (error as { code?: unknown } | undefined)?.code;
  if (error && typeof code === 'number' && error.message.startsWith('Connection refused')) {
    // CONNACK return codes: 5 (and 4) the credentials, 3 the gateway cannot take the device now.
    const message =
      code === 5 || code === 4
        ? 'the gateway refused the credentials: the token was replaced or the device deleted (pair again with a new pairing URL), or this address failed too often'
        : 'the gateway cannot take the device now';
    return { key: `refused:${code}`, level: 'warn', message, fields: { connack: code } };
  }
  if (error && typeof code === 'string') {
    return { key: `error:${code}`, level: 'warn', message: `cannot reach the gateway: ${error.message}`, fields: { code } };
  }
  if (error) return { key: `error:${error.message}`, level: 'warn', message: `cannot reach the gateway: ${error.message}`, fields: {} };
  return { key: 'closed', level: 'warn', message: 'the connection closed before the gateway accepted the device', fields: {} };
}

export class ConnectionLog {
  /** The failure logged last since the agent was last connected. */
  private lastKey: string | undefined;

  constructor(
    private readonly logger: AgentLogger,
    private readonly broker: () => string,
  ) {}

  /** An attempt failed: logged when its reason is not the one logged last. */
  failed(failure: ConnectionFailure): void {
    if (failure.key === this.lastKey) return;
    this.lastKey = failure.key;
    this.logger[failure.level](`${failure.message}; trying again, quietly until the reason changes`, { broker: this.broker(), ...failure.fields });
  }

  /** Connected: the next failure, whatever it is, is news. */
  connected(): void {
    this.lastKey = undefined;
  }

  /** A connection that was up went down. */
  lost(): void {
    this.lastKey = undefined;
    this.logger.warn('the connection to the gateway was lost; reconnecting', { broker: this.broker() });
  }
}
