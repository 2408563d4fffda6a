// Applies device status reports to SMS. Reports that arrive together are applied together: one
// transaction locks the rows, the state machine decides in memory, and one multi-row update plus
// one multi-row history insert write the result. Devices send reports with QoS 2, and the broker
// answers PUBREC only after the batch commits: a crash loses nothing, the device sends again.
import type { Database } from '../../storage/database.ts';
import type { Logger } from '../../common/logger.ts';
import type { Clock } from '../../common/clock.ts';
import type { SmsStatus } from '../messages/status.ts';
import { transitionPath } from '../messages/transitions.ts';
import { ENDED_BY_GATEWAY } from '../messages/status.ts';
import type { SmsStatusChange, StatusHooks } from './status-hooks.ts';
import { lockSms, writeStatusChanges, type LockedSms } from './repository.ts';
import type { TransientStore } from './transient-store.ts';

export interface StatusReportInput {
  deviceId: string;
  smsId: string;
  status: SmsStatus;
  error?: string | undefined;
}

/**
 * applied: the SMS moved; unchanged: a duplicate or a late report; rejected: an SMS unknown to
 * the gateway; revoked: the phone acknowledged a task that is no longer its to send (cancelled,
 * expired, or given to another phone meanwhile): it must drop the task.
 */
export type ReportOutcome = 'applied' | 'unchanged' | 'rejected' | 'revoked';

export interface ReportResult {
  outcome: ReportOutcome;
  /** Why a task was revoked: cancelled, expired, device_disabled, device_deleted, reassigned. */
  reason?: string;
}

interface Pending {
  report: StatusReportInput;
  resolve: (result: ReportResult) => void;
  reject: (error: unknown) => void;
}

/** Upper bound of reports applied in one transaction. */
const MAX_BATCH = 1000;
/**
 * Batches applied at once. The broker reads a device's next packets only once the current ones
 * are handled, so reports arrive as fast as batches commit: overlapping batches keep every
 * device's reports moving. Rows are locked in id order, so overlapping batches cannot deadlock.
 */
const PARALLEL_BATCHES = 2;

export class StatusIngestor {
  private queue: Pending[] = [];
  private readonly running = new Set<Promise<void>>();
  private scheduled = false;

  constructor(
    private readonly db: Database,
    private readonly transient: TransientStore,
    private readonly hooks: StatusHooks,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  submit(report: StatusReportInput): Promise<ReportResult> {
    if (this.transient.has(report.smsId)) return this.applyTransient(report);
    return new Promise((resolve, reject) => {
      this.queue.push({ report, resolve, reject });
      if (this.running.size < PARALLEL_BATCHES && !this.scheduled) {
        this.scheduled = true;
        // Let the reports already in the socket buffers join this batch.
        setImmediate(() => this.startBatch());
      }
    });
  }

  /** Resolves once every report submitted so far is applied (or failed): for a clean stop. */
  async idle(): Promise<void> {
    while (this.running.size > 0 || this.scheduled) await Promise.all([...this.running, new Promise((resolve) => setImmediate(resolve))]);
  }

  private startBatch(): void {
    this.scheduled = false;
    while (this.queue.length > 0 && this.running.size < PARALLEL_BATCHES) {
      const batch = this.queue.splice(0, MAX_BATCH);
      const run: Promise<void> = this.runBatch(batch).finally(() => {
        this.running.delete(run);
        if (this.queue.length > 0 && !this.scheduled) {
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
      },
    };
    await this.hooks.writtenWithoutCommitHook(this.db, [change]);
    this.hooks.committed([change]);
    return { outcome: 'applied' };
  }

  private async runBatch(batch: Pending[]): Promise<void> {
    try {
      const { outcomes, changes } = await this.applyBatch(batch.map((pending) => pending.report));
      batch.forEach((pending, i) => pending.resolve(outcomes[i]!));
      this.hooks.committed(changes);
    } catch (error) {
      this.logger.error({ err: error, reports: batch.length }, 'status batch failed; devices will resend');
      for (const pending of batch) pending.reject(error);
    }
  }

  private async applyBatch(reports: StatusReportInput[]): Promise<{ outcomes: ReportResult[]; changes: SmsStatusChange[] }> {
    return this.db.transaction(async (trx) => {
      const rows = new Map<string, LockedSms>();
      for (const row of await lockSms(trx, [...new Set(reports.map((report) => report.smsId))])) rows.set(row.id, row);
      const at = new Date(this.clock.now());
      const changes: SmsStatusChange[] = [];
      const outcomes = reports.map((report): ReportResult => {
        const row = rows.get(report.smsId);
        if (!row) return { outcome: 'rejected' };
        const { status, expires_at, reason: _reason, ...sms } = row;
        // Given to another phone meanwhile (this one was offline, paused or disabled): a phone
        // that acknowledges it now must not send it.
        if (row.device_id !== report.deviceId) return report.status === 'processing' ? { outcome: 'revoked', reason: 'reassigned' } : { outcome: 'rejected' };
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
        return { outcome: 'applied' };
      });
      await writeStatusChanges(trx, changes);
      // Committed hooks run after the devices are answered (runBatch), not on commit.
      await this.hooks.writtenWithoutCommitHook(trx, changes);
      return { outcomes, changes };
    });
  }
}
