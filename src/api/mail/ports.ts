// What the SMTP listener asks of the gateway, built by its feature
// (src/modules/mail/listener-feature.ts): the listener speaks SMTP; keys, SMS and the senders to
// answer belong to the modules.
import type { AuthThrottle } from '../../common/auth-throttle.ts';
import type { Logger } from '../../common/logger.ts';
import type { Metrics } from '../../common/metrics.ts';
import type { MailSubmissions } from './submission.ts';

/** Who logged in: an account whose key may send SMS. */
export interface MailUser {
  accountId: string;
  keyId: string;
}

export interface MailPorts {
  /** A live API key's account, or why not (unknown or revoked key, no sms:send, account disabled). */
  authenticate(key: string): Promise<{ user: MailUser } | { refused: string }>;
  submissions: Pick<MailSubmissions, 'submit'>;
  authThrottle: AuthThrottle;
  metrics: Metrics;
  logger: Logger;
}

export interface MailListenerOptions {
  host: string;
  port: number;
  /** SMTP_DOMAIN: the only domain mail is taken for. */
  domain: string;
  /** STARTTLS with this pair (PEM); none: plain SMTP only. */
  tls: { cert: Buffer; key: Buffer } | undefined;
  /** SMTP_MAX_CLIENTS: open connections in all; past it a new one is answered 421 and closed. */
  maxClients: number;
  /** SMTP_IDLE_TIMEOUT: a client that owes the gateway a command or data and sends nothing this long is answered 421. */
  idleTimeoutMs: number;
  /** SMTP_DATA_TIMEOUT: the longest a mail's DATA may take, trickling or not; past it 421. */
  dataTimeoutMs: number;
}
