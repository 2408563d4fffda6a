// Keeps the gateway's TLS servers (HTTPS and MQTTS) on the current certificate without a restart:
// on SIGHUP (a certbot deploy hook) and whenever the files change on disk, the pair is read again
// and, when it is good and new, handed to every server with setSecureContext(). Connections open
// already keep the certificate they were made with; new ones get the new one. A bad new pair
// (half written, a key of another certificate) is refused with one log line and the old pair
// stays: a reload never takes the gateway down.
import { watch, realpathSync, type FSWatcher } from 'node:fs';
import { dirname } from 'node:path';
import type { SecureContextOptions } from 'node:tls';
import type { Logger } from '../common/logger.ts';
import type { Metrics } from '../common/metrics.ts';
import { readCertificatePair, samePair, type CertificateFiles, type CertificatePair } from './certificate-pair.ts';

/** A server that can take a new certificate for its next handshakes (tls.Server, https.Server). */
export interface SecureContextTarget {
  setSecureContext(options: SecureContextOptions): void;
}

export type ReloadOutcome = 'applied' | 'unchanged' | 'refused';

/**
 * How long file events are gathered before the files are read: a renewal writes the certificate
 * and the key one after the other, and reading between the two would find a mismatched pair.
 */
export const SETTLE_MS = 500;

/** A certificate this close to its end is logged as a warning at every load and once a day after. */
const EXPIRY_WARNING_DAYS = 14;
const DAY_MS = 86_400_000;
/**
 * How often the files are read again without any event: a file watch can miss a change (a
 * network filesystem, a mounted secret updated in place), and a gateway that runs for months
 * must say, daily, that its certificate is about to end when nothing renewed it.
 */
export const PERIODIC_CHECK_MS = 3_600_000;

export class CertificateReloader {
  private readonly targets: SecureContextTarget[] = [];
  private readonly watchers: FSWatcher[] = [];
  private settle: NodeJS.Timeout | undefined;
  private periodic: NodeJS.Timeout | undefined;
  private lastExpiryWarningAt = 0;
  private closed = false;

  constructor(
    private readonly files: CertificateFiles,
    private current: CertificatePair,
    private readonly logger: Logger,
    metrics: Metrics,
    private readonly timing: { checkEveryMs?: number; now?: () => number } = {},
  ) {
    metrics.gauge('tls_certificate_expiry_timestamp_seconds', 'When the certificate the gateway serves ends (notAfter), in seconds since 1970', () =>
      Math.floor(this.current.notAfter.getTime() / 1000),
    );
    this.describe('TLS certificate loaded', current);
  }

  /** The pair servers are given now. */
  get pair(): CertificatePair {
    return this.current;
  }

  /** The PEM texts for a server being created. */
  get secureContext(): SecureContextOptions {
    return { cert: this.current.cert, key: this.current.key };
  }

  /** A server that takes every pair applied from now on. */
  serve(target: SecureContextTarget): void {
    this.targets.push(target);
  }

  /**
   * Reads the files again and applies a good, new pair to every server. Never throws. `reason`
   * goes in the log line: "SIGHUP", "file change".
   */
  reload(reason: string): ReloadOutcome {
    if (this.closed) return 'unchanged';
    const reading = readCertificatePair(this.files);
    if ('problems' in reading) {
      this.logger.error({ reason, problems: reading.problems, serving: this.summary(this.current) }, 'TLS certificate reload refused: the new files are not a good pair; still serving the old certificate');
      return 'refused';
    }
    if (samePair(reading.pair, this.current)) {
      // A SIGHUP is someone asking: they hear the answer. A file event may be any file of the directory.
      this.logger[reason === 'SIGHUP' ? 'info' : 'debug']({ reason, serving: this.summary(this.current) }, 'TLS certificate unchanged');
      return 'unchanged';
    }
    for (const target of this.targets) {
      try {
        target.setSecureContext({ cert: reading.pair.cert, key: reading.pair.key });
      } catch (error) {
        // Checked by readCertificatePair already; should a server still refuse it, none is half changed.
        this.logger.error({ reason, err: error }, 'TLS certificate reload refused by a server; still serving the old certificate');
        for (const applied of this.targets) applied.setSecureContext({ cert: this.current.cert, key: this.current.key });
        return 'refused';
      }
    }
    this.current = reading.pair;
    this.describe(`TLS certificate reloaded (${reason})`, reading.pair);
    return 'applied';
  }

  /**
   * Watches the directories of both files, and of the files symlinks point to: certbot renews by
   * writing new files and swapping symlinks, an orchestrator by swapping a directory link, an
   * editor by renaming a temporary file. Each of those is an event in a directory, not always on
   * the file's own name, so any event there leads to a reading (which finds out if anything changed).
   */
  watch(): void {
    const directories = new Set<string>();
    for (const file of [this.files.certFile, this.files.keyFile]) {
      directories.add(dirname(file));
      try {
        directories.add(dirname(realpathSync(file)));
      } catch {
        // Read at start already; a file gone meanwhile is the next reload's to report.
      }
    }
    for (const directory of directories) {
      try {
        const watcher = watch(directory, { persistent: false }, () => this.changed());
        // An error (the directory removed, a watch limit) ends this watcher, never the process.
        watcher.on('error', (error) => this.logger.warn({ err: error, directory }, 'TLS certificate directory no longer watched; SIGHUP still reloads'));
        this.watchers.push(watcher);
      } catch (error) {
        this.logger.warn({ err: error, directory }, 'TLS certificate directory cannot be watched; changes there need a SIGHUP to be applied');
      }
    }
    this.periodic = setInterval(() => this.check(), this.timing.checkEveryMs ?? PERIODIC_CHECK_MS);
    this.periodic.unref();
  }

  /** The periodic look: a change no event announced is applied; a certificate near its end is told once a day. */
  private check(): void {
    if (this.reload('periodic check') !== 'unchanged') return;
    const daysLeft = Math.floor((this.current.notAfter.getTime() - this.now()) / DAY_MS);
    if (daysLeft >= EXPIRY_WARNING_DAYS || this.now() - this.lastExpiryWarningAt < DAY_MS) return;
    this.describe('TLS certificate not renewed', this.current);
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.settle);
    clearInterval(this.periodic);
    for (const watcher of this.watchers) watcher.close();
    this.watchers.length = 0;
  }

  private changed(): void {
    if (this.closed) return;
    clearTimeout(this.settle);
    this.settle = setTimeout(() => this.reload('file change'), SETTLE_MS);
    this.settle.unref();
  }

  private describe(message: string, pair: CertificatePair): void {
    const daysLeft = Math.floor((pair.notAfter.getTime() - this.now()) / DAY_MS);
    const fields = { ...this.summary(pair), daysLeft };
    if (daysLeft < EXPIRY_WARNING_DAYS) this.lastExpiryWarningAt = this.now();
    if (daysLeft < 0) this.logger.warn(fields, `${message}; it has EXPIRED: clients refuse it`);
    else if (daysLeft < EXPIRY_WARNING_DAYS) this.logger.warn(fields, `${message}; it expires in ${daysLeft} days`);
    else this.logger.info(fields, message);
  }

  private now(): number {
    return this.timing.now?.() ?? Date.now();
  }

  /** What identifies a certificate in the logs; nothing of the private key (the pin is of the public one, as pairing URLs carry it). */
  private summary(pair: CertificatePair) {
    return { subject: pair.subject, serialNumber: pair.serialNumber, notAfter: pair.notAfter.toISOString(), fingerprint: pair.fingerprint, pin: pair.pin };
  }
}
