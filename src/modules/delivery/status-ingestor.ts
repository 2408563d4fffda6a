// Applies device status reports to SMS. Reports that arrive together are applied together: one
// transaction locks the rows, the state machine decides in memory, and one multi-row update plus
// one multi-row history insert write the result. Devices send reports with QoS 2, and the broker
// answers PUBREC only after the batch commits: a crash loses nothing, the device sends again.
//
// A database outage is ridden out, not passed on: a batch that fails because the database is
// unreachable goes back to the head of the queue and is retried with backoff, so its reports are
// held (no PUBREC) and the devices keep their connections and sessions. Rejecting a report makes
// the broker close the device's connection, and a phone refused at its reconnect (CONNACK 3,
// server unavailable) may never try again. Only a report held past MAX_HOLD_MS is rejected.
import { EventEmitter } from 'node:events';
import type { Database } from '../../storage/database.ts';
import type { Logger } from '../../common/logger.ts';
import type { Clock } from '../../common/clock.ts';
import type { SmsStatus } from '../messages/status.ts';
import { transitionPath } from '../messages/transitions.ts';
import { ENDED_BY_GATEWAY } from '../messages/status.ts';
import type { SmsStatusChange } from '../../events/sms-status-change.ts';
import type { DomainEvents } from '../../events/domain-events.ts';
import { lockSms, recordSentSimSlots, writeStatusChanges, type LockedSms } from './repository.ts';
import type { TransientStore } from './transient-store.ts';
import { Backoff, OutageNotice } from '../../storage/database-errors.ts';

export interface StatusReportInput {
  deviceId: string;
  smsId: string;
  status: SmsStatus;
  error?: string | undefined;
  /** The SIM slot the phone sent from, when its report says. */
  simSlot?: number | undefined;
}

/**
 * applied: the SMS moved; unchanged: a duplicate or a late report; rejected: an SMS unknown to
 * the gateway; revoked: the phone acknowledged a task that is no longer its to send (cancelled,
 * expired, or given to another phone meanwhile): it must drop the task.
 */
export type ReportOutcome = 'applied' | 'unchanged' | 'rejected' | 'revoked';

export interface ReportResult {
  outcome: ReportOutcome;
  /** Why a task was revoked: cancelled, expired, device_disabled, device_deleted, reassigned, withdrawn. */
  reason?: string;
}

interface Pending {
  report: StatusReportInput;
  resolve: (result: ReportResult) => void;
  reject: (error: unknown) => void;
  /** When an outage first held it back (performance.now()). */
  heldSince?: number;
}

/** Upper bound of reports applied in one transaction. */
const MAX_BATCH = 1000;
/**
 * Batches applied at once. The broker reads a device's next packets only once the current ones
 * are handled, so reports arrive as fast as batches commit: overlapping batches keep every
 * device's reports moving. Rows are locked in id order, so overlapping batches cannot deadlock.
 */
const PARALLEL_BATCHES = 2;
/**
 * How long a report may be held through an outage before it is rejected (the device's connection
 * closes and it sends the report again after reconnecting). What bounds memory meanwhile is the
 * broker: it reads a device's next packets only once the pending ones are handled, so at most a
 * read chunk's worth of reports per connected device waits here. The bound only keeps a device's
 * keepalive (not read while its report is held) from running out first.
 */
export const MAX_HOLD_MS = 60_000;

/** "held": an outage held `reports` back, to be retried (for tests and drills to await). */
export class StatusIngestor extends EventEmitter<{ held: [reports: number] }> {
  private queue: Pending[] = [];
  private readonly running = new Set<Promise<void>>();
  private scheduled = false;
  /** Set while an outage holds the queue: the retry that resumes it. */
  private retryTimer: NodeJS.Timeout | undefined;
  private giveUp = false;
  private readonly backoff = new Backoff(250, 5_000);
  private readonly outage: OutageNotice;

  constructor(
    private readonly db: Database,
    private readonly transient: TransientStore,
    private readonly events: DomainEvents,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly maxHoldMs = MAX_HOLD_MS,
  ) {
    super();
    this.outage = new OutageNotice(logger, 'status reports held');
  }

  submit(report: StatusReportInput): Promise<ReportResult> {
    if (this.transient.has(report.smsId)) return this.applyTransient(report);
    return new Promise((resolve, reject) => {
      this.queue.push({ report, resolve, reject });
      if (this.running.size < PARALLEL_BATCHES && !this.scheduled && !this.retryTimer) {
        this.scheduled = true;
        // Let the reports already in the socket buffers join this batch.
        setImmediate(() => this.startBatch());
      }
    });
  }

  /**
   * Resolves once every report submitted so far is applied (or failed): for a clean stop, once
   * the broker has closed. Reports held by an outage are rejected rather than waited for: their
   * devices are gone and send them again to whichever gateway they reach next.
   */
  async idle(): Promise<void> {
    this.giveUp = true;
    if (this.retryTimer) {
      clearTimeout(this.retryTimer);
      this.retryTimer = undefined;
      this.rejectAll(this.queue.splice(0), new Error('gateway stopping during a database outage'));
    }
    while (this.running.size > 0 || this.scheduled) await Promise.all([...this.running, new Promise((resolve) => setImmediate(resolve))]);
  }

  private startBatch(): void {
    this.scheduled = false;
    while (this.queue.length > 0 && this.running.size < PARALLEL_BATCHES && !this.retryTimer) {
      const batch = this.queue.splice(0, MAX_BATCH);
      const run: Promise<void> = this.runBatch(batch).finally(() => {
        this.running.delete(run);
        if (this.queue.length > 0 && !this.scheduled && !this.retryTimer) {
          this.scheduled = true;
          setImmediate(() => this.startBatch());
        }
      });
      this.running.add(run);
    }
  }

  private async applyTransient(report: StatusReportInput): Promise<ReportResult> {
    const result = this.transient.apply(report.smsId, report.deviceId, report.status);
    if (!result) return { outcome: 'rejected' };
    if (result.path.length === 0) return { outcome: 'unchanged' };
    const change: SmsStatusChange = {
      path: result.path,
      source: 'device',
      reason: report.error ?? null,
      at: new Date(this.clock.now()),
      from: result.from,
      transient: true,
      sms: {
        id: result.sms.id,
        object_id: result.sms.object_id,
        account_id: result.sms.account_id,
        phone: result.sms.phone,
        message: null,
        callback_id: null,
        device_id: result.sms.device_id,
        device_object_id: null,
        is_encrypted: result.sms.is_encrypted,
        kind: result.sms.kind,
      },
    };
    await this.events.inTransaction(this.db, 'sms.status_changed', [change]);
    void this.events.emit('sms.status_changed', [change]);
    return { outcome: 'applied' };
  }

  private async runBatch(batch: Pending[]): Promise<void> {
    let applied: Awaited<ReturnType<StatusIngestor['applyBatch']>>;
    const startedAt = Date.now();
    try {
      applied = await this.applyBatch(batch.map((pending) => pending.report));
    } catch (error) {
      // A commit whose answer was lost may have been applied: applying it again changes nothing.
      if (!this.giveUp && this.outage.failed(error)) return this.hold(batch, error);
      this.logger.error({ err: error, reports: batch.length }, 'status batch failed; devices will resend');
      return this.rejectAll(batch, error);
    }
    this.outage.succeeded(startedAt);
    this.backoff.reset();
    batch.forEach((pending, i) => pending.resolve(applied.outcomes[i]!));
    void this.events.emit('sms.status_changed', applied.changes);
  }

  /**
   * The database is unreachable: the batch goes back to the head of the queue, and no batch
   * starts until a retry after the backoff delay (then with whatever queued meanwhile too).
   * Reports held longer than the bound are rejected.
   */
  private hold(batch: Pending[], error: unknown): void {
    const now = performance.now();
    const kept: Pending[] = [];
    const expired: Pending[] = [];
    for (const pending of batch) {
      pending.heldSince ??= now;
      (now - pending.heldSince >= this.maxHoldMs ? expired : kept).push(pending);
    }
    if (expired.length > 0) {
      this.logger.warn({ reports: expired.length, heldMs: this.maxHoldMs }, 'status reports held too long through a database outage; their devices will resend');
      this.rejectAll(expired, error);
    }
    this.queue.unshift(...kept);
    if (kept.length > 0) this.emit('held', kept.length);
    if (this.retryTimer || this.queue.length === 0) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.startBatch();
    }, this.backoff.delay());
  }

  private rejectAll(batch: Pending[], error: unknown): void {
    for (const pending of batch) pending.reject(error);
  }

  private async applyBatch(reports: StatusReportInput[]): Promise<{ outcomes: ReportResult[]; changes: SmsStatusChange[] }> {
    return this.db.transaction(async (trx) => {
      const rows = new Map<string, LockedSms>();
      for (const row of await lockSms(trx, [...new Set(reports.map((report) => report.smsId))])) rows.set(row.id, row);
      const at = new Date(this.clock.now());
      const changes: SmsStatusChange[] = [];
      const sentFrom = new Map<string, number>();
      const outcomes = reports.map((report): ReportResult => {
        const row = rows.get(report.smsId);
        if (!row) return { outcome: 'rejected' };
        const { status, expires_at, reason: _reason, dispatched_at, device_can_send, ...sms } = row;
        // Given to another phone meanwhile (this one was offline, paused or disabled): a phone
        // that acknowledges it now must not send it.
        if (row.device_id !== report.deviceId) return report.status === 'processing' ? { outcome: 'revoked', reason: 'reassigned' } : { outcome: 'rejected' };
        // Named for this device, not handed to it now, and the device switched off: taken back
        // into its queue when it was switched off, to be handed out again once it may send.
        // Until then its phone must not send it.
        if (status === 'pending' && !dispatched_at && device_can_send === false) {
          return report.status === 'processing' ? { outcome: 'revoked', reason: 'device_disabled' } : { outcome: 'rejected' };
        }
        // Named for this device and handed to no one now: taken back from its phone (its text was
        // replaced) and waiting to be handed out again. An acknowledgement of the earlier
        // hand-out must not send it; the next hand-out is a new task.
        if (status === 'pending' && !dispatched_at && report.status === 'processing') return { outcome: 'revoked', reason: 'withdrawn' };
        // Expired before the phone took it, though the sweep has not ended it yet: end it now,
        // so that a late acknowledgement cannot take it.
        if (status === 'pending' && expires_at && expires_at <= at) {
          changes.push({ sms, from: status, path: ['failed_send'], source: 'system', reason: 'expired', at, transient: false });
          row.status = 'failed_send';
          row.reason = 'expired';
        }
        const path = transitionPath(row.status, report.status);
        if (path.length === 0) {
          // Ended by the gateway (cancelled, expired, device disabled) before the phone took it.
          const ended = row.status === 'failed_send' && report.status === 'processing' && ENDED_BY_GATEWAY.has(row.reason ?? '');
          return ended ? { outcome: 'revoked', reason: row.reason! } : { outcome: 'unchanged' };
        }
        changes.push({ sms, from: row.status, path, source: 'device', reason: report.error ?? null, at, transient: false });
        row.status = report.status;
        if (report.simSlot !== undefined) sentFrom.set(row.id, report.simSlot);
        return { outcome: 'applied' };
      });
      await writeStatusChanges(trx, changes);
      await recordSentSimSlots(trx, sentFrom);
      // The committed listeners run after the devices are answered (runBatch), not on commit.
      await this.events.inTransaction(trx, 'sms.status_changed', changes);
      return { outcomes, changes };
    });
  }
}
