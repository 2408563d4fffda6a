// Canary rounds: in a round each eligible SIM of the account sends one short coded SMS to another
// of its SIMs (pairing.ts), as an ordinary queued SMS of kind 'canary' named for the sender's
// device and SIM, so that pacing, dispatch and statuses serve it as any SMS. A probe passes when
// the receiving phone reports the code (the received SMS is then taken here, never stored as one
// of the account's), and fails at its deadline or at once when its SMS ends failed_send. Each
// transaction that ends probes asks the health judge what they decide.
import { randomUUID } from 'node:crypto';
import type { Database, Executor } from '../../../storage/database.ts';
import type { Clock } from '../../../common/clock.ts';
import type { Logger } from '../../../common/logger.ts';
import { AppError } from '../../../common/errors.ts';
import type { DeviceService } from '../../devices/service.ts';
import type { MessageService, PreparedSms } from '../../messages/service.ts';
import type { ReceivedSms } from '../../incoming/service.ts';
import { canaryCodeIn, canaryText, newCanaryCode } from './code.ts';
import { eligibleSims, whyTooFew, type CanarySim } from './eligible.ts';
import { partnersOf } from './pairing.ts';
import type { HealthJudge } from './health-judge.ts';
import * as canary from './repository.ts';
import type { CanaryProbeRow, CanarySettings, SkippedSim } from './types.ts';

/** Accounts whose round a run starts at most (the rest are taken by the next run, or another node). */
const DUE_PER_RUN = 20;
/** Accounts whose overdue probes a sweep ends at most (the rest are taken by the next sweep). */
const OVERDUE_ACCOUNTS_PER_RUN = 50;
/** The highest an SMS may have (POST /sms priority: -100 to 100). */
const CANARY_PRIORITY = 100;

export interface SettingsPatch {
  enabled?: boolean | undefined;
  interval_minutes?: number | undefined;
  timeout_seconds?: number | undefined;
}

export interface RoundStarted {
  round: number;
  probes: CanaryProbeRow[];
  skipped: SkippedSim[];
}

/** A canary SMS that ended failed_send, as its status change said. */
export interface CanarySendFailure {
  smsId: string;
  reason: string | null;
}

export class CanaryService {
  constructor(
    private readonly db: Database,
    private readonly devices: DeviceService,
    private readonly messages: MessageService,
    private readonly judge: HealthJudge,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  async settings(accountId: string): Promise<CanarySettings> {
    const row = await canary.findSettings(this.db, accountId);
    return {
      account_id: accountId,
      enabled: row?.enabled ?? false,
      interval_minutes: row ? Number(row.interval_minutes) : 60,
      timeout_seconds: row ? Number(row.timeout_seconds) : 300,
      next_round_at: row?.next_round_at ?? null,
      last_round_at: row?.last_round_at ?? null,
      rounds_run: row ? Number(row.rounds_run) : 0,
      updated_at: row?.updated_at ?? null,
    };
  }

  async update(accountId: string, patch: SettingsPatch): Promise<CanarySettings> {
    await canary.saveSettings(this.db, accountId, patch, new Date(this.clock.now()));
    return this.settings(accountId);
  }

  /**
   * Starts a round now: 409 conflict, saying what is missing, when fewer than two SIMs are
   * eligible (nothing is written then).
   */
  async runNow(accountId: string): Promise<RoundStarted> {
    const started = await this.startRound(accountId);
    if ('tooFew' in started) throw new AppError('conflict', started.tooFew);
    return started;
  }

  /** The scheduled rounds that are due, each started once whichever node takes it; answers how many started. */
  async runDue(): Promise<number> {
    const due = await canary.claimDue(this.db, new Date(this.clock.now()), DUE_PER_RUN);
    let started = 0;
    for (const accountId of due) {
      try {
        const round = await this.startRound(accountId);
        if ('tooFew' in round) this.logger.debug({ accountId }, 'canary round skipped: fewer than two eligible SIMs');
        else started += 1;
      } catch (error) {
        this.logger.error({ err: error, accountId }, 'canary round not started');
      }
    }
    return started;
  }

  /** Fails the probes past their deadline; answers how many accounts had some. */
  async endOverdue(): Promise<number> {
    // Nothing overdue (the usual case) costs one read of canary_probes_deadline, no transaction.
    const accountIds = await canary.accountsOverdue(this.db, new Date(this.clock.now()), OVERDUE_ACCOUNTS_PER_RUN);
    for (const accountId of accountIds) {
      await this.db.transaction(async (trx) => {
        await canary.lockAccount(trx, accountId);
        const rounds = await canary.failOverdue(trx, accountId, new Date(this.clock.now()));
        await this.judgeIfDecided(trx, accountId, rounds, []);
      });
    }
    return accountIds.length;
  }

  /**
   * Heard in the transaction of the status changes: canary SMS that ended failed_send fail their
   * probes at once. Only called with canary SMS (the feature filters), so other SMS cost nothing.
   */
  async sendsFailed(trx: Executor, failures: CanarySendFailure[]): Promise<void> {
    if (failures.length === 0) return;
    const at = new Date(this.clock.now());
    const byReason = new Map<string, string[]>();
    for (const failure of failures) {
      const key = failure.reason ? `send_failed: ${failure.reason}` : 'send_failed';
      byReason.set(key, [...(byReason.get(key) ?? []), failure.smsId]);
    }
    for (const accountId of await canary.accountsOfSms(trx, failures.map((failure) => failure.smsId))) {
      await canary.lockAccount(trx, accountId);
      const rounds = new Set<string>();
      for (const [failure, smsIds] of byReason) for (const round of await canary.failProbesOfSms(trx, accountId, smsIds, at, failure)) rounds.add(round);
      await this.judgeIfDecided(trx, accountId, [...rounds], []);
    }
  }

  /**
   * A received SMS carrying a canary code of the account is the gateway's own: its probe passes
   * when it reached the phone and SIM it was sent to (failed when it reached another), and it is
   * taken (true) whatever its probe's state, so that a repeated report or a late arrival is never
   * stored as a received SMS either. Any other text costs one regex test.
   */
  async caught(accountId: string, deviceId: string, sms: ReceivedSms): Promise<boolean> {
    if (sms.isEncrypted) return false;
    const code = canaryCodeIn(sms.message);
    if (code === undefined) return false;
    return this.db.transaction(async (trx) => {
      await canary.lockAccount(trx, accountId);
      const probe = await canary.lockProbeByCode(trx, accountId, code);
      if (!probe) return false;
      if (probe.result !== 'pending') return true;
      const now = this.clock.now();
      const reachedIt = probe.receiver_device_id === deviceId && (sms.simSlot === null || sms.simSlot === Number(probe.receiver_sim));
      if (reachedIt) await canary.passProbe(trx, probe.id, new Date(now), Math.max(0, now - new Date(probe.created_at).getTime()));
      else await canary.failProbe(trx, probe.id, new Date(now), 'received_elsewhere');
      const passedWith = reachedIt
        ? [
            { deviceId: probe.sender_device_id, simSlot: Number(probe.sender_sim) },
            { deviceId: probe.receiver_device_id, simSlot: Number(probe.receiver_sim) },
          ]
        : [];
      await this.judgeIfDecided(trx, accountId, [probe.round_id], passedWith);
      return true;
    });
  }

  /**
   * Asks the judge once a round's last probe ended (the account's probe ends are serialised by
   * lockAccount, so exactly one transaction sees it), and at once when a canary passed with a SIM
   * that is degraded now (it may recover). A round of N SIMs is judged once, not N times: each
   * judgement weighs the account's last rounds, thousands of probes on a large fleet.
   */
  private async judgeIfDecided(trx: Executor, accountId: string, rounds: readonly string[], passedWith: readonly { deviceId: string; simSlot: number }[]): Promise<void> {
    let decided = false;
    for (const round of rounds) if (!(await canary.roundUnderWay(trx, round))) decided = true;
    if (decided || (passedWith.length > 0 && (await this.judge.anyDegraded(trx, passedWith)))) await this.judge.judge(trx, accountId);
  }

  /**
   * A round: the eligible SIMs paired for its number, one canary SMS and one probe each, written in
   * one transaction and announced as queued once it commits (the dispatcher hands them out).
   */
  private async startRound(accountId: string): Promise<RoundStarted | { tooFew: string; skipped: SkippedSim[] }> {
    const online = await this.devices.online(accountId);
    const onlineIds = new Set(online.map((device) => device.id));
    const offline = (await this.devices.liveIds(accountId)).filter((id) => !onlineIds.has(id));
    const eligibility = eligibleSims(online, offline);
    if (eligibility.eligible.length < 2) return { tooFew: whyTooFew(eligibility), skipped: eligibility.skipped };

    const now = this.clock.now();
    const { round, timeoutSeconds } = await canary.countRound(this.db, accountId, new Date(now));
    const deadline = new Date(now + timeoutSeconds * 1000);
    const roundId = randomUUID();
    const shared = { devices: new Map<string, Promise<string>>(), callbacks: new Map<string, Promise<boolean>>() };
    const planned: { prepared: PreparedSms; sender: CanarySim; receiver: CanarySim; code: string }[] = [];
    const codes = new Set<string>();
    for (const [sender, receiver] of partnersOf(eligibility.eligible, round)) {
      let code = newCanaryCode();
      while (codes.has(code)) code = newCanaryCode();
      codes.add(code);
      // Past the opt-out list (transactional): the recipient is the account's own SIM. Valid until
      // the deadline: a canary no phone took by then has failed, and must not go out later. First
      // in its device's queue (highest priority): a SIM that sends is not to fail its canary for
      // waiting behind the account's own backlog; it is one SMS per SIM and round.
      const prepared = await this.messages.prepare(
        accountId,
        {
          phone: receiver.phone,
          message: canaryText(code),
          deviceId: sender.deviceId,
          simSlot: sender.simSlot,
          transactional: true,
          validUntil: deadline.toISOString(),
          priority: CANARY_PRIORITY,
          canary: true,
        },
        shared,
      );
      planned.push({ prepared, sender, receiver, code });
    }
    const probes: CanaryProbeRow[] = planned.map(({ prepared, sender, receiver, code }) => ({
      id: randomUUID(),
      account_id: accountId,
      round_id: roundId,
      round_number: round,
      sender_device_id: sender.deviceId,
      sender_sim: sender.simSlot,
      receiver_device_id: receiver.deviceId,
      receiver_sim: receiver.simSlot,
      code,
      sms_id: prepared.sms.id,
      created_at: new Date(now),
      deadline_at: deadline,
      result: 'pending',
      failure: null,
      ended_at: null,
      round_trip_ms: null,
    }));
    await this.db.transaction(async (trx) => {
      await this.messages.commit(planned.map((entry) => entry.prepared), trx);
      await canary.insertProbes(trx, probes);
    });
    return { round, probes, skipped: eligibility.skipped };
  }
}
