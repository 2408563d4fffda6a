// The certificates the running gateway serves: HTTPS and MQTTS on TLS_CERT and TLS_KEY (kept
// current by the reloader: on SIGHUP and when the files change), SMPP over TLS on SMPP_TLS_CERT
// and SMPP_TLS_KEY (on SIGHUP). SIGHUP is what a certbot deploy hook sends; one handler serves
// both, and is removed at stop so that a stopped gateway in a long-lived process hears nothing.
import type { Server as TlsServer } from 'node:tls';
import type { Config } from '../config.ts';
import { ConfigError } from '../config.ts';
import type { Logger } from '../common/logger.ts';
import type { Metrics } from '../common/metrics.ts';
import type { SmppListener } from '../api/smpp/listener.ts';
import { reloadSmppCertificate } from '../api/smpp/certificate-reload.ts';
import { readCertificatePair, type CertificatePair } from './certificate-pair.ts';
import { CertificateReloader, type ReloadOutcome, type SecureContextTarget } from './certificate-reloader.ts';

/**
 * Reads TLS_CERT and TLS_KEY before anything is opened: a bad pair stops the start with the
 * reason, naming the variable. None without TLS.
 */
export function readFirstPair(config: Config): CertificatePair | undefined {
  if (!config.tls) return undefined;
  const reading = readCertificatePair(config.tls);
  if ('problems' in reading) throw new ConfigError(reading.problems);
  return reading.pair;
}

export class ServedCertificates {
  /** Keeps HTTPS and MQTTS on the current certificate; none without TLS. */
  readonly reloader: CertificateReloader | undefined;

  constructor(
    private readonly config: Config,
    firstPair: CertificatePair | undefined,
    private readonly logger: Logger,
    metrics: Metrics,
    /** The SMPP listener as running now; none while it is not. */
    private readonly smppListener: () => SmppListener | undefined,
  ) {
    if (config.tls && firstPair) this.reloader = new CertificateReloader(config.tls, firstPair, logger.child({ component: 'tls' }), metrics);
  }

  /** Serves the current pair to these servers from now on, watches the files, and hears SIGHUP. */
  start(servers: readonly (SecureContextTarget | TlsServer | undefined)[]): void {
    if (this.reloader) {
      for (const server of servers) if (server) this.reloader.serve(server);
      this.reloader.watch();
    }
    if (this.reloader || this.config.smpp.tls) process.on('SIGHUP', this.onHangup);
  }

  /** A bound function, so that close() can remove it. */
  private readonly onHangup = (): void => {
    if (this.reloader) this.reload('SIGHUP');
    if (this.config.smpp.tls) this.reloadSmpp('SIGHUP');
  };

  /** Reads TLS_CERT and TLS_KEY again and serves a good new pair to new HTTPS and MQTTS connections; else keeps the old one and logs why. Never throws. */
  reload(reason: string): ReloadOutcome {
    if (this.reloader) return this.reloader.reload(reason);
    this.logger.warn({ reason }, 'no TLS certificate to reload: TLS_CERT and TLS_KEY are not set');
    return 'unchanged';
  }

  /** Reads SMPP_TLS_CERT and SMPP_TLS_KEY again and serves a good new pair to new SMPP connections. Never throws. */
  reloadSmpp(reason: string): ReloadOutcome {
    const files = this.config.smpp.tls;
    const listener = this.smppListener();
    return files && listener ? reloadSmppCertificate(files, listener, this.logger, reason) : 'unchanged';
  }

  close(): void {
    process.off('SIGHUP', this.onHangup);
    this.reloader?.close();
  }
}
