// USSD through the account's phones. A client dials a code on one of its phones; the gateway
// stores the session, then hands the request to the phone (its `ussd` topic); the phone answers
// on `ussd_status` with the network's text. A menu (waiting_reply) waits for the client's reply,
// which goes to the phone as the next step; the session ends completed or failed.
//
// Only an online phone is asked: USSD is a conversation with the network that lasts seconds, so
// a request is refused (409 device_offline) rather than queued for a phone that may come back
// after the answer stopped mattering. Every wait is bounded by `expires_at`, stored with the
// session: the expiry sweep claims rows with SKIP LOCKED and ends an overdue session as failed
// ("timeout") once, whichever node reaches it. It runs every second only while there is something
// to sweep: on a node that found a session open, opened one or heard of one (a reply, a phone's
// report), until none is open. Otherwise a node looks once at start and then once a minute (a
// node that took sessions may have stopped for good). A final session
// announces "ussd.finished" in the transaction that ended it (webhooks are written there).
import { randomUUID } from 'node:crypto';
import type { Database, Executor } from '../../storage/database.ts';
import { isPostgresError } from '../../storage/database.ts';
import type { Cursor } from '../../storage/paging.ts';
import type { Clock } from '../../common/clock.ts';
import type { Logger } from '../../common/logger.ts';
import { AppError } from '../../common/errors.ts';
import type { DomainEvents } from '../../events/domain-events.ts';
import type { UssdEvents } from './domain-events.ts';
import { OutageNotice } from '../../common/outage-notice.ts';
import { PeriodicRun } from '../../common/periodic-run.ts';
import type { DeviceRow } from '../devices/types.ts';
import { canDo } from '../devices/capabilities.ts';
import * as sessions from './repository.ts';
import { TIMEOUT_ERROR as TIMEOUT } from './repository.ts';
import { DEFAULT_USSD_SIM } from './schema.ts';
import { MAX_USSD_STEP, type UssdReport, type UssdReportOutcome, type UssdRequest } from './device-protocol.ts';
import { FINAL_USSD_STATUSES, type UssdSessionRow } from './types.ts';

/** The way to the phones (the broker's sessions); none in a command, where no broker runs. */
export interface UssdLink {
  sendUssd(deviceId: string, request: UssdRequest): Promise<void>;
}

export interface UssdOptions {
  /** USSD_TIMEOUT: how long each answer is waited for unless the request says otherwise. */
  defaultTimeoutMs: number;
  /** How often the expiry sweep looks for overdue sessions. */
  sweepIntervalMs: number;
}

/** Overdue sessions ended per sweep transaction; the sweep goes on while a batch comes back full. */
const EXPIRY_BATCH = 200;

/**
 * How often a node that knows of no open session looks all the same: a session taken by a node
 * that then stopped for good, whose phone never answers, is ended within this much of its deadline.
 */
const IDLE_LOOK_MS = 60_000;

export class UssdService {
  private readonly expiry: PeriodicRun<void>;
  private readonly outage: OutageNotice;
  /** startExpiry was called, stopExpiry not since: the sweep may be armed. */
  private expiring = false;
  /** Sessions opened or moved here, counted: a sweep that found none open disarms only if none came meanwhile. */
  private touched = 0;
  /** The next look while no session is known to be open (the sweep's timer is stopped then). */
  private idleLook: NodeJS.Timeout | undefined;

  constructor(
    private readonly db: Database,
    private readonly devices: { get(accountId: string, id: string): Promise<DeviceRow> },
    private readonly presence: { isOnline(deviceId: string): boolean },
    private readonly events: DomainEvents<UssdEvents>,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly options: UssdOptions,
    private readonly link?: UssdLink,
  ) {
    this.outage = new OutageNotice(logger, 'USSD expiry retried each sweep');
    // The sweep logs its own failures: a database outage ends with its first batch written.
    this.expiry = new PeriodicRun(() => this.sweep(), { everyMs: options.sweepIntervalMs, runAtStart: false });
  }

  /** Dials `code` on the account's phone; the session is pending until the phone answers. */
  async start(accountId: string, deviceId: string, request: { code: string; sim?: number | undefined; timeoutSeconds?: number | undefined }): Promise<UssdSessionRow> {
    const device = await this.devices.get(accountId, deviceId);
    // A phone that said it cannot dial USSD for the gateway (a modem agent) would leave the
    // session to time out: refused now instead, whether or not it is online.
    if (!canDo(device.capabilities, { kind: 'ussd' })) {
      throw new AppError('device_not_capable', `device ${device.id} cannot dial USSD for the gateway, as its last heartbeat said`);
    }
    if (!this.presence.isOnline(device.id)) throw new AppError('device_offline');
    const now = new Date(this.clock.now());
    const timeoutSeconds = request.timeoutSeconds ?? Math.round(this.options.defaultTimeoutMs / 1000);
    let row: UssdSessionRow;
    try {
      row = await sessions.insertSession(this.db, {
        id: randomUUID(),
        account_id: accountId,
        device_id: device.id,
        code: request.code,
        sim: request.sim ?? DEFAULT_USSD_SIM,
        status: 'pending',
        history: [{ from: 'client', text: request.code, at: now.toISOString() }],
        timeout_seconds: timeoutSeconds,
        expires_at: this.deadline(now, timeoutSeconds),
        created_at: now,
      });
    } catch (error) {
      if (isPostgresError(error, '23505')) throw new AppError('ussd_busy');
      throw error;
    }
    this.arm();
    // Sent once committed, so that an answer, however fast, finds the session.
    await this.send(row.device_id, { session_id: row.id, step: 0, action: 'dial', code: row.code, sim: row.sim, expires_at: row.expires_at.toISOString() });
    return row;
  }

  /** The client's answer to the network's menu: the session is pending again, one step further. */
  async reply(accountId: string, id: string, text: string): Promise<UssdSessionRow> {
    const outcome = await this.db.transaction(async (trx) => {
      const session = await sessions.lockInAccount(trx, accountId, id);
      if (!session) throw new AppError('ussd_not_found');
      const now = new Date(this.clock.now());
      // Past its deadline the session has timed out, whether or not a sweep has got to it yet.
      if (session.status === 'waiting_reply' && session.expires_at.getTime() <= now.getTime()) return { timedOut: true as const, row: await this.timeOut(trx, session, now) };
      if (session.status !== 'waiting_reply') throw new AppError('ussd_not_waiting', `the USSD session is ${session.status}, not waiting_reply: only a menu is replied to`);
      if (!this.presence.isOnline(session.device_id)) throw new AppError('device_offline');
      if (session.step >= MAX_USSD_STEP) throw new AppError('ussd_not_waiting', `the USSD session has taken ${MAX_USSD_STEP} steps, the most a session may`);
      const row = await sessions.updateSession(trx, session.id, {
        status: 'pending',
        step: session.step + 1,
        said: { from: 'client', text, at: now.toISOString() },
        expiresAt: this.deadline(now, session.timeout_seconds),
        now,
      });
      return { timedOut: false as const, row };
    });
    if (outcome.timedOut) {
      await this.cancel(outcome.row);
      throw new AppError('ussd_not_waiting', 'the USSD session timed out waiting for the reply: it is failed now');
    }
    const { row } = outcome;
    this.arm();
    await this.send(row.device_id, { session_id: row.id, step: row.step, action: 'reply', text, expires_at: row.expires_at.toISOString() });
    return row;
  }

  async get(accountId: string, id: string): Promise<UssdSessionRow> {
    const row = await sessions.findInAccount(this.db, accountId, id);
    if (!row) throw new AppError('ussd_not_found');
    return row;
  }

  /** A page of the device's sessions, newest first; 404 for a device not the account's. */
  async listForDevice(accountId: string, deviceId: string, limit: number, cursor?: Cursor): Promise<UssdSessionRow[]> {
    const device = await this.devices.get(accountId, deviceId);
    return sessions.listForDevice(this.db, accountId, device.id, limit, cursor);
  }

  /**
   * A phone's report: applied only to a session of that phone, at the step it names, while the
   * session waits for the phone. A repeat, an answer to an earlier step, or one after the session
   * ended (a timeout) changes nothing and says so.
   */
  async report(deviceId: string, report: UssdReport): Promise<UssdReportOutcome> {
    // The session may have been opened on another node: this one sweeps it too from now on.
    this.arm();
    return this.db.transaction(async (trx) => {
      const session = await sessions.lockForDevice(trx, deviceId, report.session_id);
      if (!session) return 'unknown';
      if (FINAL_USSD_STATUSES.includes(session.status)) {
        // The phone's own final answer again (a redelivery) is a repeat; anything after a timeout, or another answer, is late.
        const repeat = session.error !== TIMEOUT && session.step === report.step && session.status === report.status;
        return repeat ? 'unchanged' : 'late';
      }
      const now = new Date(this.clock.now());
      // Past the deadline the answer is late, whether or not a sweep has ended the session yet.
      if (session.expires_at.getTime() <= now.getTime()) {
        await this.timeOut(trx, session, now);
        return 'late';
      }
      if (report.step !== session.step) return 'stale';
      if (session.status === 'waiting_reply') return report.status === 'waiting_reply' ? 'unchanged' : 'stale';
      const said = report.message !== undefined ? { from: 'network' as const, text: report.message, at: now.toISOString() } : undefined;
      if (report.status === 'waiting_reply') {
        // The client now has a full wait of its own to reply.
        await sessions.updateSession(trx, session.id, { status: 'waiting_reply', message: report.message, said, expiresAt: this.deadline(now, session.timeout_seconds), now });
        return 'applied';
      }
      const ended = await sessions.updateSession(trx, session.id, {
        status: report.status,
        ...(report.message !== undefined ? { message: report.message } : {}),
        error: report.status === 'failed' ? report.error : null,
        said,
        finishedAt: now,
        now,
      });
      await this.events.written(trx, 'ussd.finished', ended);
      return 'applied';
    });
  }

  /** Lets the expiry sweep run (unref'd; starting it twice changes nothing): once now, for sessions left open, then while any is. */
  startExpiry(): void {
    if (this.expiring) return;
    this.expiring = true;
    void this.expiry.runOnce();
  }

  /** Stops the sweep; resolves once a sweep under way has ended. */
  stopExpiry(): Promise<void> {
    this.expiring = false;
    clearTimeout(this.idleLook);
    this.idleLook = undefined;
    return this.expiry.stop();
  }

  /** A session is open, or may be: sweep every interval until none is. */
  private arm(): void {
    this.touched += 1;
    if (this.expiring) this.sweepEveryInterval();
  }

  private sweepEveryInterval(): void {
    clearTimeout(this.idleLook);
    this.idleLook = undefined;
    this.expiry.start();
  }

  /** None open: the timer stops (not waited for: this may be its own run), and one look is due a minute later. */
  private rest(): void {
    void this.expiry.stop();
    if (!this.expiring || this.idleLook) return;
    this.idleLook = setTimeout(() => {
      this.idleLook = undefined;
      void this.expiry.runOnce();
    }, IDLE_LOOK_MS);
    this.idleLook.unref();
  }

  /**
   * Ends every overdue session as failed ("timeout"), announcing each in its transaction, then
   * tells their phones to drop them. A sweep already under way is joined, not doubled.
   */
  expireDue(): Promise<void> {
    return this.expiry.runOnce();
  }

  private async sweep(): Promise<void> {
    const startedAt = Date.now();
    const touched = this.touched;
    try {
      const next = await sessions.nextDeadline(this.db);
      // A session opened or heard of meanwhile keeps the timer going: this read may have missed it.
      if (next === undefined && this.touched === touched) this.rest();
      if (next !== undefined && this.expiring) this.sweepEveryInterval();
      if (next === undefined || next.getTime() > this.clock.now()) return this.outage.succeeded(startedAt);
      for (;;) {
        const now = new Date(this.clock.now());
        const expired = await this.db.transaction(async (trx) => {
          const rows = await sessions.expireDue(trx, now, EXPIRY_BATCH);
          for (const row of rows) await this.events.written(trx, 'ussd.finished', row);
          return rows;
        });
        this.outage.succeeded(startedAt);
        for (const row of expired) await this.cancel(row);
        if (expired.length > 0) this.logger.info({ expired: expired.length }, 'USSD sessions timed out');
        if (expired.length < EXPIRY_BATCH) return;
      }
    } catch (error) {
      // Tried again every interval until the database answers: what it holds is not known meanwhile.
      if (this.expiring) this.sweepEveryInterval();
      if (!this.outage.failed(error)) this.logger.error({ err: error }, 'USSD expiry sweep failed');
    }
  }

  /** Ends an open session as failed ("timeout") in `trx`, announced there, as the sweep would. */
  private async timeOut(trx: Executor, session: UssdSessionRow, now: Date): Promise<UssdSessionRow> {
    const ended = await sessions.updateSession(trx, session.id, { status: 'failed', error: TIMEOUT, finishedAt: now, now });
    await this.events.written(trx, 'ussd.finished', ended);
    return ended;
  }

  /** Tells the phone the gateway gave up on the session (it may close the network's session). */
  private cancel(session: UssdSessionRow): Promise<void> {
    return this.send(session.device_id, { session_id: session.id, step: session.step, action: 'cancel', reason: TIMEOUT });
  }

  private deadline(from: Date, timeoutSeconds: number): Date {
    return new Date(from.getTime() + timeoutSeconds * 1000);
  }

  /** Hands the request to the phone; a failure is logged (the session then times out), never thrown at the client. */
  private async send(deviceId: string, request: UssdRequest): Promise<void> {
    if (!this.link) return;
    try {
      await this.link.sendUssd(deviceId, request);
    } catch (error) {
      this.logger.warn({ err: error, deviceId, sessionId: request.session_id, action: request.action }, 'USSD request not handed to the broker');
    }
  }
}
