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
import type { Database, Executor } from '../../storage/database.ts';
import type { Logger } from '../../common/logger.ts';
import type { Clock } from '../../common/clock.ts';
import type { SmsStatus } from '../messages/status.ts';
import { transitionPath } from '../messages/transitions.ts';
import { ENDED_BY_GATEWAY } from '../messages/status.ts';
import type { SmsStatusChange } from './status-change.ts';
import type { DomainEvents } from '../../events/domain-events.ts';
import type { DeliveryEvents } from './domain-events.ts';
import { lockSms, writeStatusChanges, type LockedSms } from './repository.ts';
import { retryFacts, scheduleRetries, untriedSims, type AttemptEnded, type AttemptWrite, type RetryWrite } from './attempts.ts';
import { isRetryable, retryDelayMs } from './send-errors.ts';
import type { TransientStore } from './transient-store.ts';
import { OutageNotice } from '../../common/outage-notice.ts';
import { Backoff, isLostLockRace } from '../../storage/database-errors.ts';
import { writeInHalves } from '../../storage/write-in-halves.ts';

export interface StatusReportInput {
  deviceId: string;
  smsId: string;
  status: SmsStatus;
  error?: string | undefined;
  /** Machine-readable reason of a failed send; decides whether it is retried (send-errors.ts). */
  errorCode?: string | undefined;
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

export interface RetryOptions {
  /** A retry waits this long after the first failed attempt, doubling after each further one. */
  backoffMs: number;
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
    private readonly events: DomainEvents<DeliveryEvents>,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly maxHoldMs = MAX_HOLD_MS,
    private readonly retry: RetryOptions = { backoffMs: 30_000 },
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
        way_in: result.sms.way_in ?? 'api',
      },
    };
    await this.events.inTransaction(this.db, 'sms.status_changed', [change]);
    void this.events.emit('sms.status_changed', [change]);
    return { outcome: 'applied' };
  }

  private async runBatch(batch: Pending[]): Promise<void> {
    // A report that fails for good (a row it breaks, a bug on its data) must not take the rest
    // with it, each refusal closing its phone's connection: applied in halves, it fails alone.
    const refused: Pending[] = [];
    let refusal: unknown;
    const stopped = await writeInHalves(batch, (part) => this.applyAndAnswer(part), (pending, error) => {
      refused.push(pending);
      refusal ??= error;
    });
    if (refused.length > 0) this.refuse(refused, refusal);
    if (!stopped) return;
    const { error, rows } = stopped;
    // A commit whose answer was lost may have been applied: applying it again changes nothing.
    if (!this.giveUp && this.outage.failed(error)) return this.hold(rows, error);
    // A batch PostgreSQL rolled back to break a deadlock wrote nothing: it is applied again after
    // the same short delay, rather than refused (its phone would only send it again on reconnecting).
    if (!this.giveUp && isLostLockRace(error)) {
      this.logger.warn({ code: (error as { code: string }).code, reports: rows.length }, 'status batch lost a lock race; applying it again');
      return this.hold(rows, error);
    }
    this.refuse(rows, error);
  }

  /** Applies the reports in one transaction, then answers their devices and announces the changes. */
  private async applyAndAnswer(batch: Pending[]): Promise<void> {
    const startedAt = Date.now();
    const applied = await this.applyBatch(batch.map((pending) => pending.report));
    this.outage.succeeded(startedAt);
    this.backoff.reset();
    batch.forEach((pending, i) => pending.resolve(applied.outcomes[i]!));
    void this.events.emit('sms.status_changed', applied.changes);
    void this.events.emit('sms.attempts_ended', applied.ended);
  }

  private refuse(batch: Pending[], error: unknown): void {
    this.logger.error({ err: error, reports: batch.length }, 'status reports failed; their devices will send them again');
    this.rejectAll(batch, error);
  }

  /**
   * The database is unreachable, or rolled the batch back to break a deadlock: the batch goes
   * back to the head of the queue, and no batch starts until a retry after the backoff delay
   * (then with whatever queued meanwhile too).
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

  private async applyBatch(reports: StatusReportInput[]): Promise<{ outcomes: ReportResult[]; changes: SmsStatusChange[]; ended: AttemptEnded[] }> {
    return this.db.transaction(async (trx) => {
      const rows = new Map<string, LockedSms>();
      for (const row of await lockSms(trx, [...new Set(reports.map((report) => report.smsId))])) rows.set(row.id, row);
      const at = new Date(this.clock.now());
      const changes: SmsStatusChange[] = [];
      const sentFrom = new Map<string, number>();
      const attempts = new Map<string, AttemptWrite>();
      const retries: RetryWrite[] = [];
      const ended: AttemptEnded[] = [];
      const outcomes: ReportResult[] = [];
      for (const report of reports) outcomes.push(await this.applyOne(trx, report, rows, at, { changes, sentFrom, attempts, retries, ended }));
      await writeStatusChanges(trx, changes, sentFrom, [...attempts.values()]);
      // After the status changes: a retry leaves the SMS waiting (pending), whatever this batch said before.
      await scheduleRetries(trx, retries);
      // The committed listeners run after the devices are answered (runBatch), not on commit.
      await this.events.inTransaction(trx, 'sms.status_changed', changes);
      return { outcomes, changes, ended };
    });
  }

  private async applyOne(
    trx: Executor,
    report: StatusReportInput,
    rows: Map<string, LockedSms>,
    at: Date,
    out: { changes: SmsStatusChange[]; sentFrom: Map<string, number>; attempts: Map<string, AttemptWrite>; retries: RetryWrite[]; ended: AttemptEnded[] },
  ): Promise<ReportResult> {
    const row = rows.get(report.smsId);
    if (!row) return { outcome: 'rejected' };
    const {
      status,
      expires_at,
      reason: _reason,
      dispatched_at,
      device_can_send,
      max_attempts: _max,
      device_named: _named,
      sim_slot: _simSlot,
      retry_sim_slot: _retrySim,
      device_sim_cards: _cards,
      ...snapshot
    } = row;
    const sms = { ...snapshot, attempt: row.attempt };
    // Given to another phone meanwhile (this one was offline, paused or disabled): a phone
    // that acknowledges it now must not send it.
    if (row.device_id !== report.deviceId) return report.status === 'processing' ? { outcome: 'revoked', reason: 'reassigned' } : { outcome: 'rejected' };
    // Named for this device, not handed to it now, and the device switched off: taken back
    // into its queue when it was switched off, to be handed out again once it may send.
    // Until then its phone must not send it.
    if (status === 'pending' && !dispatched_at && device_can_send === false) {
      return report.status === 'processing' ? { outcome: 'revoked', reason: 'device_disabled' } : { outcome: 'rejected' };
    }
    // Waiting for its next attempt on this same device, not handed out yet: a late report of the
    // attempt that failed changes nothing.
    if (status === 'pending' && !dispatched_at && row.attempt > 1) return { outcome: 'unchanged' };
    // Named for this device, its text replaced, and handed to no one since: taken back from its
    // phone and waiting to be handed out again. An acknowledgement of the earlier hand-out must
    // not send the old text; the next hand-out is a new task.
    if (status === 'pending' && !dispatched_at && row.reason === 'replaced' && report.status === 'processing') return { outcome: 'revoked', reason: 'withdrawn' };
    // Expired before the phone took it, though the sweep has not ended it yet: end it now,
    // so that a late acknowledgement cannot take it.
    if (status === 'pending' && expires_at && expires_at <= at) {
      out.changes.push({ sms, from: status, path: ['failed_send'], source: 'system', reason: 'expired', at, transient: false });
      row.status = 'failed_send';
      row.reason = 'expired';
    }
    const path = transitionPath(row.status, report.status);
    if (path.length === 0) {
      // Ended by the gateway (cancelled, expired, device disabled) before the phone took it.
      const ended = row.status === 'failed_send' && report.status === 'processing' && ENDED_BY_GATEWAY.has(row.reason ?? '');
      return ended ? { outcome: 'revoked', reason: row.reason! } : { outcome: 'unchanged' };
    }
    const simSlot = report.simSlot ?? row.retry_sim_slot ?? row.sim_slot ?? null;
    const attemptKey = `${row.id}:${row.attempt}`;
    const attempt = out.attempts.get(attemptKey) ?? {
      smsId: row.id,
      attempt: row.attempt,
      deviceId: report.deviceId,
      simSlot: null,
      at,
      result: 'sending' as const,
      errorCode: null,
      error: null,
      retried: false,
    };
    out.attempts.set(attemptKey, attempt);
    if (report.simSlot !== undefined) attempt.simSlot = report.simSlot;
    else attempt.simSlot ??= simSlot;
    const newStatus = report.status;
    if (newStatus === 'failed_send') {
      attempt.result = 'failed';
      attempt.errorCode = report.errorCode ?? null;
      attempt.error = report.error ?? null;
      const retry = await this.retryOf(trx, row, report, simSlot, at);
      out.ended.push({ smsId: row.id, accountId: row.account_id, deviceId: report.deviceId, simSlot, attempt: row.attempt, outcome: 'failed', errorCode: report.errorCode ?? null, retried: retry !== undefined });
      if (retry) {
        // Not final: the client keeps seeing it pending, and hears no failure. What it went
        // through before (processing) was announced; the failure is in the attempts.
        attempt.retried = true;
        if (status === 'pending') out.changes.push({ sms, from: status, path: ['processing'], source: 'device', reason: null, at, transient: false });
        out.retries.push(retry);
        row.status = 'pending';
        row.device_id = retry.deviceId;
        row.dispatched_at = null;
        row.attempt = retry.attempt;
        row.retry_sim_slot = retry.retrySimSlot;
        return { outcome: 'applied' };
      }
    } else if (newStatus !== 'processing' && (status === 'pending' || status === 'processing')) {
      attempt.result = 'sent';
      out.ended.push({ smsId: row.id, accountId: row.account_id, deviceId: report.deviceId, simSlot: attempt.simSlot, attempt: row.attempt, outcome: 'sent', errorCode: null, retried: false });
    }
    out.changes.push({ sms, from: row.status, path, source: 'device', reason: report.error ?? report.errorCode ?? null, at, transient: false });
    row.status = report.status;
    if (report.simSlot !== undefined) out.sentFrom.set(row.id, report.simSlot);
    return { outcome: 'applied' };
  }

  /**
   * Whether a failed send goes round again, and where: only for a retryable error_code, while the
   * device's max_send_attempts allows, and where an untried route exists. A SMS its client named a
   * device for retries on another SIM of that device (none when the client named the SIM too);
   * one for any device goes back to the pool, kept from this phone when it has no SIM left to try.
   */
  private async retryOf(trx: Executor, row: LockedSms, report: StatusReportInput, simSlot: number | null, at: Date): Promise<RetryWrite | undefined> {
    if (!isRetryable(report.errorCode) || row.attempt >= row.max_attempts) return undefined;
    // A canary's failure is what its round measures: never tried again, on this SIM or another.
    if (row.kind === 'canary') return undefined;
    const facts = await retryFacts(trx, row, report.deviceId, at);
    const tried = [...facts.failed, ...facts.paused, ...(simSlot !== null ? [simSlot] : [])];
    const untried = untriedSims(row.device_sim_cards ?? [], tried);
    const base = { smsId: row.id, attempt: row.attempt + 1, retryAt: new Date(at.getTime() + retryDelayMs(this.retry.backoffMs, row.attempt)), at };
    if (row.device_named) {
      // A slot named (0 and up) is the client's choice; -1 (random) and -2 (the phone's default) name none.
      if ((row.sim_slot !== null && row.sim_slot >= 0) || untried.length === 0) return undefined;
      return { ...base, deviceId: report.deviceId, retrySimSlot: untried[0]!, avoidDeviceId: null };
    }
    if (untried.length > 0) return { ...base, deviceId: null, retrySimSlot: null, avoidDeviceId: null };
    if (!facts.otherDevice) return undefined;
    return { ...base, deviceId: null, retrySimSlot: null, avoidDeviceId: report.deviceId };
  }
}
