// What the SMPP listener asks of the gateway, built by its feature
// (src/modules/smpp/listener-feature.ts): the listener speaks SMPP and keeps sessions;
// credentials, SMS and stored deliver_sm belong to the modules.
import type { AuthThrottle } from '../../common/auth-throttle.ts';
import type { Metrics } from '../../common/metrics.ts';
import type { Clock } from '../../common/clock.ts';
import type { Logger } from '../../common/logger.ts';
import type { SmppCredential, PendingDeliver } from '../../modules/smpp/types.ts';
import type { SmppSubmissions } from './submission.ts';

export interface SmppPorts {
  credentials: {
    authenticate(systemId: string, password: string): Promise<SmppCredential | undefined>;
    /** Whether a bound credential still works (another node may have revoked it). */
    stillWorks(credentialId: string): Promise<boolean>;
  };
  submissions: Pick<SmppSubmissions, 'submit' | 'query' | 'cancel' | 'replace'>;
  /** The deliver_sm waiting for a credential's ESME (receipts, incoming SMS). */
  pending: {
    claim(credentialId: string, limit: number, leaseMs: number): Promise<PendingDeliver[]>;
    acknowledged(id: string): Promise<void>;
    release(ids: string[]): Promise<void>;
    purge(retentionMs: number): Promise<number>;
  };
  authThrottle: AuthThrottle;
  metrics: Metrics;
  clock: Clock;
  logger: Logger;
}

export interface SmppListenerOptions {
  host: string;
  /** Plain SMPP; none: off. */
  port: number | undefined;
  /** SMPP over TLS, with its certificate and key (PEM). */
  tls?: { port: number; cert: Buffer; key: Buffer } | undefined;
  /** The gateway sends enquire_link after this long without a PDU, and closes a session that does not answer in as long again. */
  enquireLinkMs: number;
  /** A connection that has not bound within this long is closed. */
  bindTimeoutMs: number;
  /** Receipts and incoming SMS wait this long for a session of their system_id. */
  retentionMs: number;
  /** A deliver_sm unanswered this long is sent again. */
  responseTimeoutMs: number;
  /** Open connections from one client address; more are closed at once (an ESME needs a few). */
  maxConnectionsPerAddress: number;
  /**
   * Open connections in all (SMPP's share of the connection budget); a quarter of them may be
   * unbound, waiting in the room that pushes out the oldest of the address holding most of it.
   */
  maxConnections: number;
  /** DEFAULT_PHONE_REGION: national destinations are read in it; none, they are refused. */
  defaultPhoneRegion: string | undefined;
}
