// Moves SMS from the database to phones, at the pace the phones can take them. Postgres is the
// queue and MQTT only the transport (architecture decision 1):
//
// - Pull, per device. An SMS waits unassigned (or, when its client named a device, in that
//   device's queue) until an online device has room; then that device claims it in a transaction
//   that locks the device row, counts its tasks in flight and recent sends, and takes the next
//   SMS with SKIP LOCKED, priority first, then oldest first (repository.claimSms). Whether a
//   device has room is decided there, from the database, never from this process's memory:
//   what is kept here (ready devices, when each may have room again) only saves pointless
//   claims, and the periodic sweep corrects it.
// - Online means what the API shows (is_online): connected, subscribed to its tasks, and heard
//   from within DEVICE_OFFLINE_AFTER (devices/presence.ts, on the gateway's clock). A phone whose
//   connection stays open but says nothing (a half-open mobile link under a long keepalive) is
//   offered nothing, claims nothing, takes no no_store SMS and is failed over like a phone that
//   disconnected; the moment it speaks again it is online and claims again.
// - Taken is taken. Once a phone acknowledged a task (processing) the SMS is that phone's.
//   Before that, the tasks of a device that is offline for FAILOVER_AFTER, paused by the circuit
//   breaker, or may no longer send go back to the pool (or wait for the device its client named).
// - Every task is re-driven from the rows: when a device becomes ready, and by the sweep for
//   tasks not acknowledged within TASK_RETRY_AFTER. Devices treat the SMS id as an idempotency
//   key, so a task delivered twice is sent once.
// - The suppression list holds here too, not only when an SMS is created: an SMS whose recipient
//   sent STOP while it waited ends in its claim as failed_send, reason recipient_opted_out (one
//   index probe per SMS, inside the claim's own statement), and so does an unacknowledged task
//   about to be published again. Every way in (the APIs, bulk, SMPP, email, MMS, data SMS,
//   retries) reaches a phone through these two places only; a no_store SMS, handed out the
//   moment it is created, was checked then.
import type { Database, Executor } from '../../storage/database.ts';
import type { Logger } from '../../common/logger.ts';
import type { Clock } from '../../common/clock.ts';
import type { DomainEventListener, DomainEvents } from '../../events/domain-events.ts';
import type { DeliveryEvents } from './domain-events.ts';
import type { DevicePresence } from '../devices/presence.ts';
import type { DeviceRow } from '../devices/types.ts';
import { canDo, type CapabilityNeed } from '../devices/capabilities.ts';
import type { SmsRecord } from '../messages/types.ts';
import { ENDED_BY_GATEWAY, IN_FLIGHT_STATUSES } from '../messages/status.ts';
import { newStatus, type SmsStatusChange } from './status-change.ts';
import {
  accountDeviceIds,
  claimSms,
  deviceUsage,
  everySimDegraded,
  putBack,
  recipientsSims,
  recordSimDispatches,
  type ClaimingDevice,
  LIMIT_GRACE_MS,
  lockDevice,
  devicesWithUnacknowledged,
  dueWork,
  expireDue,
  logDispatch,
  openTasks,
  poolReach,
  ownReach,
  inDeviceGroup,
  pruneDispatchLog,
  readyWork,
  type ReadyWork,
  refuseOptedOut,
  releaseUnacknowledged,
  spaceNextSend,
  unacknowledgedSince,
} from './repository.ts';
import { jitterDelayMs, roomFor, type Blocker } from './pacing.ts';
import { pauseDevice, recordRetriedFailures, recordSendOutcomes, type BreakerOptions, type Tripped } from './circuit-breaker.ts';
import { recordSimOutcomes, type PausedSim, type SimBreakerOptions } from './sim-breaker.ts';
import { failedSims, type AttemptEnded } from './attempts.ts';
import { deviceOrder } from './device-order.ts';
import { claimPlan, everySimDegraded as everySimDegradedOf } from './claim-plan.ts';
import { chooseSims, type SimState } from './sim-caps.ts';
import { buildTask, type SendTask, type TaskRouting } from './task.ts';
import type { TransientStore } from './transient-store.ts';
import { OutageNotice } from '../../common/outage-notice.ts';
import { GatheredReads } from '../../common/gathered-reads.ts';
import { SingleFlight } from '../../common/single-flight.ts';

/** What the dispatcher needs from the broker. */
export interface DeviceLink {
  /** Connected and subscribed to its task topic: a task published now reaches it. */
  isReady(deviceId: string): boolean;
  sendTask(deviceId: string, task: SendTask): Promise<void>;
  sendSettings(device: DeviceRow): Promise<void>;
  /** Tells the device to drop a task it has not acknowledged (docs/asyncapi.yaml, TaskRevoked). */
  revokeTask(deviceId: string, smsId: string, reason: string): Promise<void>;
  disconnect(deviceId: string): void;
}

/** The SMS a no_store hand-over carries to another node. */
export type HandedOverSms = SmsRecord;

/** Several nodes: no_store SMS for phones other nodes hold (src/cluster/transient-handoff.ts). */
export interface TransientHandOff {
  /** Phones of the account (or the one named) that other nodes hold now. */
  candidates(accountId: string, deviceId?: string): string[];
  /** Hands the SMS, reserved on a phone of another node, to that node. */
  hand(sms: HandedOverSms): void;
}

/** A SIM's health changed (fleet health's "fleet.health_changed", as delivery reads it). */
export interface HealthChange {
  deviceId: string;
  accountId: string;
  state: 'degraded' | 'healthy';
  fault: 'send' | 'receive' | null;
}

/** What the dispatcher knows of a device that subscribed to its tasks. */
export type ReadyDeviceRow = Pick<DeviceRow, 'id' | 'account_id' | 'selected_sim' | 'sim_cards'>;

export interface DispatcherOptions {
  /** A task not acknowledged for this long is published again. */
  ackTimeoutMs: number;
  /** Unacknowledged tasks of a device offline this long go to other devices. */
  failoverAfterMs: number;
  sweepIntervalMs: number;
  breaker: BreakerOptions;
  /** The SIM breaker: a SIM failing with the same error this many times in a row is paused. */
  simBreaker: SimBreakerOptions;
}

type SimInfo = Pick<DeviceRow, 'selected_sim' | 'sim_cards'>;

/** This node's knowledge of a device it holds the connection of (a cache). */
interface ReadyDevice {
  accountId: string;
  sim: SimInfo;
  /** Tasks in flight at the last claim. */
  inFlight: number;
  /** A time-based block (rate limit, quiet hours, pause) ends then; 0: none known. */
  blockedUntil: number;
  /** The window was full at the last claim: only a finished task opens it. */
  full: boolean;
  /** SIM slots the SIM breaker paused, as the last claim read them: no task names them. */
  pausedSims: number[];
  /**
   * SIM slots with failures in a row counted, as the last claim read them (and this node's
   * counting since): only a send from one of these has a count to reset.
   */
  countingSims: Set<number>;
  /** Which part of the pool its claims see (repository.poolReach), as the last claim read it; undefined before one. */
  reach?: string;
  /** Its radio said it cannot send (the last claim or heartbeat): no claim until a heartbeat says it can. */
  radioDown?: boolean;
  /** Every SIM it reported is degraded (fault send), as the last claim or health change said: offered no pool work. */
  degraded?: boolean;
}

export interface ClaimResult {
  claimed: number;
  room: number;
  blockedBy?: Blocker | 'cannot_send';
  /** Which part of the pool the claim looked at (repository.poolReach). */
  reach?: string;
}

const PAGE = 500;
/** Of a device that just became ready, the tasks in flight read with its group's; the rest page by PAGE. */
const FIRST_PAGE = 100;
/**
 * Devices that become ready together share one read, at most this many; in a storm (another read
 * within READY_BUSY_MS) the read waits READY_GATHER_MS for more of them.
 */
const READY_GROUP = 200;
const READY_GATHER_MS = 5;
const READY_BUSY_MS = 100;
/** Every this many sweeps, devices believed full are asked again (a lost report, another node). */
const FULL_RECHECK_SWEEPS = 10;
const PRUNE_EVERY_SWEEPS = 60;
const EXPIRE_BATCH = 1000;

export class Dispatcher {
  private readonly devices = new Map<string, ReadyDevice>();
  /**
   * The ready devices of each account: choosing a device for an SMS looks at its account's
   * phones only, never at the whole fleet this node holds.
   */
  private readonly byAccount = new Map<string, Map<string, ReadyDevice>>();
  private readonly lastPublished = new Map<string, number>();
  /**
   * Of each device whose ready work is being read and re-sent, the tasks (SMS id and attempt)
   * published to it since it became ready. A claim may publish an SMS to the device while that read waits to be gathered
   * with other devices'; the read then finds the SMS among the tasks the device holds and would
   * send it a second time. Kept only while the device's ready work is handled.
   */
  private readonly sentSinceReady = new Map<string, Set<string>>();
  private readonly claims = new SingleFlight<string>(
    (deviceId) => this.claim(deviceId),
    (error, deviceId) => {
      if (!this.outage.failed(error)) this.logger.error({ err: error, deviceId }, 'claim failed');
    },
  );
  private readonly claimChain = new Map<string, Promise<void>>();
  private readonly poolOffers = new SingleFlight<string>(
    (accountId) => this.pass(accountId),
    (error, accountId) => {
      if (!this.outage.failed(error)) this.logger.error({ err: error, accountId }, 'pool offer failed');
    },
  );
  private readonly previous = new Map<string, string>();
  /** What devices that just became ready hold and may find, one read for those that became ready together. */
  private readonly readyReads = new GatheredReads<string, ReadyWork & { toPublish: SmsRecord[] }>((deviceIds) => this.readyWorkOf(deviceIds), {
    maxKeys: READY_GROUP,
    gatherMs: READY_GATHER_MS,
    busyWithinMs: READY_BUSY_MS,
  });
  /** Devices tripped by the breaker in a batch, paused once it commits. */
  private readonly tripped = new WeakMap<SmsStatusChange[], Tripped[]>();
  private sweepTimer: NodeJS.Timeout | undefined;
  private sweeping: Promise<void> | undefined;
  /** The sweep that follows the one under way, for callers that asked during it. */
  private nextSweep: Promise<void> | undefined;
  private sweeps = 0;
  private readonly startedAt: number;
  private readonly outage: OutageNotice;
  /** Stopped: nothing more is published to devices. */
  private stopped = false;

  constructor(
    private readonly db: Database,
    private readonly presence: DevicePresence,
    private readonly transient: TransientStore,
    /** Where the sweep's status changes (expiry, failover) are announced. */
    private readonly events: DomainEvents<DeliveryEvents>,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly options: DispatcherOptions,
    /** How tasks reach the devices; none where no broker runs (a command). */
    private readonly deviceLink?: DeviceLink,
    /** Several nodes: no_store SMS for phones other nodes hold. */
    private readonly elsewhere?: TransientHandOff,
  ) {
    this.startedAt = clock.now();
    this.outage = new OutageNotice(logger, 'claims and sweeps retried each sweep');
  }

  /** Starts the sweep: the broker listens now. */
  start(): void {
    this.sweepTimer ??= setInterval(() => void this.sweep(), this.options.sweepIntervalMs);
    this.sweepTimer.unref();
  }

  /** Stops the sweep and publishes nothing more; resolves once the work under way has ended. */
  async stop(): Promise<void> {
    clearInterval(this.sweepTimer);
    this.stopped = true;
    await this.sweeping;
    await Promise.all([this.claims.settled(), this.poolOffers.settled()]);
  }

  /** The broker's way to devices, until the dispatcher stops. */
  private get link(): DeviceLink | undefined {
    return this.stopped ? undefined : this.deviceLink;
  }

  // What the broker tells -------------------------------------------------------------------

  /**
   * The device subscribed to its tasks: send everything it holds, then let it claim more. Devices
   * that become ready at about the same time (a reconnect storm) share one read of what they hold
   * and whether a claim may find anything (repository.readyWork); only those that may find
   * something take a claim transaction. The device is registered as ready before that read: an
   * SMS queued after it is offered to the device by the queued path, as to any ready device, and
   * is sent once even when the read then finds it among the tasks the device holds.
   */
  async deviceReady(device: ReadyDeviceRow): Promise<void> {
    this.deviceGone(device.id);
    const ready: ReadyDevice = {
      accountId: device.account_id,
      sim: { selected_sim: device.selected_sim, sim_cards: device.sim_cards },
      inFlight: 0,
      blockedUntil: 0,
      full: false,
      pausedSims: [],
      countingSims: new Set(),
    };
    this.devices.set(device.id, ready);
    let ofAccount = this.byAccount.get(device.account_id);
    if (!ofAccount) this.byAccount.set(device.account_id, (ofAccount = new Map()));
    ofAccount.set(device.id, ready);
    const sent = new Set<string>();
    this.sentSinceReady.set(device.id, sent);
    try {
      const work = await this.readyReads.get(device.id);
      let page = work?.openTasks ?? [];
      let open = page.length;
      for (const sms of work?.toPublish ?? []) await this.publish(sms);
      for (let limit = FIRST_PAGE; page.length === limit; limit = PAGE) {
        const last = page[page.length - 1]!;
        page = await openTasks(this.db, device.id, PAGE, { dispatchedAt: last.dispatched_at!, id: last.id });
        open += page.length;
        for (const sms of await this.withoutOptedOut(page)) await this.publish(sms);
      }
      // Until a claim reads it, what it holds is what it has in flight (least busy devices are offered the pool first).
      ready.inFlight = Math.max(ready.inFlight, open);
      if (work?.claimable) await this.claimFor(device.id);
    } finally {
      // A newer connection of the device may have begun its own.
      if (this.sentSinceReady.get(device.id) === sent) this.sentSinceReady.delete(device.id);
    }
  }

  /**
   * What these devices that just became ready hold and may find; of the tasks they hold, those to
   * publish: the ones whose recipient opted out since are ended for the whole group at once.
   */
  private async readyWorkOf(deviceIds: string[]): Promise<Map<string, ReadyWork & { toPublish: SmsRecord[] }>> {
    // Stopped meanwhile: nothing more is published, and the database may be closing.
    if (this.stopped) return new Map();
    const work = await readyWork(this.db, deviceIds, this.clock.now(), FIRST_PAGE);
    const held = [...work.values()].flatMap((device) => device.openTasks);
    const kept = new Set((await this.withoutOptedOut(held)).map((sms) => sms.id));
    return new Map([...work].map(([deviceId, device]) => [deviceId, { ...device, toPublish: device.openTasks.filter((sms) => kept.has(sms.id)) }]));
  }

  /** The device reported its SIM cards: -1 ("random SIM") chooses among these from now on. */
  simCardsChanged(deviceId: string, simCards: DeviceRow['sim_cards']): void {
    const device = this.devices.get(deviceId);
    if (device) device.sim = { ...device.sim, sim_cards: simCards };
  }

  /**
   * A heartbeat said whether the device's radio can send. One that cannot is offered nothing; one
   * that can again is claimed for at once, without waiting for the sweep.
   */
  radioReported(deviceId: string, canSend: boolean): void {
    const device = this.devices.get(deviceId);
    if (!device) return;
    if (!canSend) {
      device.radioDown = true;
      device.blockedUntil = Number.POSITIVE_INFINITY;
      return;
    }
    if (!device.radioDown) return;
    device.radioDown = false;
    device.blockedUntil = 0;
    void this.claimFor(deviceId);
  }

  deviceGone(deviceId: string): void {
    const device = this.devices.get(deviceId);
    if (!device) return;
    this.devices.delete(deviceId);
    const ofAccount = this.byAccount.get(device.accountId);
    ofAccount?.delete(deviceId);
    if (ofAccount?.size === 0) this.byAccount.delete(device.accountId);
  }

  // Claiming ---------------------------------------------------------------------------------

  /**
   * One claim for the device: as many SMS as it has room for. Claims of one device on this node
   * run one at a time; a request during a claim gets one more claim after it.
   */
  claimFor(deviceId: string): Promise<void> {
    return this.claims.run(deviceId);
  }

  /** Offers the account's pool to its ready devices, least busy first, until it is empty. */
  offerPool(accountId: string): Promise<void> {
    return this.poolOffers.run(accountId);
  }

  private async pass(accountId: string): Promise<void> {
    const now = this.clock.now();
    const candidates = [...(this.byAccount.get(accountId) ?? [])]
      .filter(([id, device]) => !device.degraded && this.mayHaveRoom(device, now) && this.reachable(id, now))
      .map(([id, device]) => ({ id, in_flight: device.inFlight }));
    // Parts of the pool found empty in this pass: a device that sees only what another found
    // empty is not asked. A device that cannot send some of it (MMS, data, encrypted SMS) sees
    // only a part, so the devices after it may still find work. Once a device that sees all of
    // it found it empty, only devices in a device group may find more: what routes keep for it.
    const emptied = new Set<string>();
    const whole = poolReach(null);
    let wholeEmptied = false;
    for (const deviceId of deviceOrder(candidates, this.previous.get(accountId))) {
      const known = this.devices.get(deviceId)?.reach;
      if (known !== undefined && emptied.has(known)) continue;
      if (wholeEmptied && !inDeviceGroup(known)) continue;
      this.previous.set(accountId, deviceId);
      const result = await this.claim(deviceId);
      // It had room and found less work than that: the part of the pool it sees is empty.
      if (result && result.room > 0 && result.claimed < result.room) {
        if (result.reach === whole) wholeEmptied = true;
        else if (result.reach !== undefined) emptied.add(result.reach);
      }
    }
  }

  private mayHaveRoom(device: ReadyDevice, now: number): boolean {
    return !device.full && device.blockedUntil <= now;
  }

  /**
   * A task published now reaches the device, and the device counts as online by the rule the
   * API shows: subscribed here, and not silent past DEVICE_OFFLINE_AFTER.
   */
  private reachable(deviceId: string, now: number): boolean {
    return Boolean(this.link?.isReady(deviceId)) && this.presence.isOnline(deviceId, now);
  }

  /** One claim at a time per device on this node (the device row lock orders nodes). */
  private claim(deviceId: string): Promise<ClaimResult | undefined> {
    const previous = this.claimChain.get(deviceId) ?? Promise.resolve();
    const run = previous.then(() => this.claimNow(deviceId));
    const settled = run.then(
      () => undefined,
      () => undefined,
    );
    this.claimChain.set(deviceId, settled);
    void settled.then(() => {
      if (this.claimChain.get(deviceId) === settled) this.claimChain.delete(deviceId);
    });
    return run;
  }

  private async claimNow(deviceId: string): Promise<ClaimResult | undefined> {
    const device = this.devices.get(deviceId);
    if (!device || !this.reachable(deviceId, this.clock.now())) return undefined;
    const { result, claimed, inFlight, retryAt } = await this.db.transaction(async (trx): Promise<{ result: ClaimResult; claimed: SmsRecord[]; inFlight: number; retryAt: number | undefined }> => {
      const locked = await lockDevice(trx, deviceId);
      // The time is read once the lock is held: it is what the claim counts from and records.
      const now = this.clock.now();
      const usage = locked ? await deviceUsage(trx, deviceId, now, false) : undefined;
      if (!usage || !usage.can_send_sms) {
        return { result: { claimed: 0, room: 0, blockedBy: 'cannot_send' as const }, claimed: [], inFlight: 0, retryAt: undefined };
      }
      const room = roomFor(usage.settings, usage.usage, now, LIMIT_GRACE_MS);
      const away = usage.stickySender && room.room > 0 ? await this.awayDevices(trx, usage.account_id, now) : [];
      const plan = claimPlan(usage, room, now, LIMIT_GRACE_MS, away);
      const { taken: took, refused } = plan.want > 0 ? await claimSms(trx, usage, plan.want, now, plan.filters) : { taken: [], refused: [] };
      // SMS whose recipient opted out while they waited ended in the claim: announced with it.
      if (refused.length > 0) await this.events.written(trx, 'sms.status_changed', refused);
      const taken = plan.sims ? await this.chooseSims(trx, usage, plan.sims, took, now) : took;
      device.pausedSims = [...new Set([...usage.pausedSims, ...usage.degradedSims])];
      device.countingSims = new Set(usage.countingSims);
      device.degraded = plan.canaryOnly;
      // send_jitter: the next task waits a pause drawn now; the sweep hands it out then.
      let spacedUntil: number | undefined;
      if (taken.length > 0 && usage.settings.send_jitter) {
        spacedUntil = now + jitterDelayMs(usage.settings.send_jitter);
        await spaceNextSend(trx, deviceId, spacedUntil);
      }
      return {
        result: {
          claimed: taken.length,
          // A device taking canaries only, or seeing a pool of its own, says nothing of what others would find.
          room: plan.canaryOnly ? 0 : plan.want,
          // SMS no SIM of it could take went back: other devices may take them.
          reach: plan.ownPool || taken.length < took.length ? ownReach(deviceId, usage.group) : poolReach(usage.capabilities, usage.group),
          ...(plan.blockedBy ? { blockedBy: plan.blockedBy } : {}),
        },
        claimed: taken,
        inFlight: usage.usage.inFlight + taken.length,
        retryAt: spacedUntil ?? plan.retryAt,
      };
    });
    device.inFlight = inFlight;
    if (result.reach !== undefined) device.reach = result.reach;
    device.full = result.blockedBy === 'window';
    device.blockedUntil = retryAt ?? 0;
    device.radioDown = result.blockedBy === 'radio';
    if (result.blockedBy === 'cannot_send' || device.radioDown) device.blockedUntil = Number.POSITIVE_INFINITY;
    for (const sms of claimed) await this.publish(sms);
    return result;
  }

  /**
   * The SIM each SMS a claim took is handed to (sim-caps.ts), written with the dispatch log rows
   * and the SIMs' counters; SMS no SIM may take now go back where they waited. Only for a device
   * with SIM limits or of an account with sticky sender.
   */
  private async chooseSims(trx: Executor, usage: ClaimingDevice, sims: SimState[], taken: SmsRecord[], now: number): Promise<SmsRecord[]> {
    if (taken.length === 0) return taken;
    const { known, sticky } = await recipientsSims(trx, usage, [...new Set(taken.map((sms) => sms.phone))], now, usage.stickySender);
    // A retry keeps away from the SIMs of this device that failed it (rare: one look per retry).
    const avoid = new Map<string, number[]>();
    for (const sms of taken) if ((sms.attempt ?? 1) > 1) avoid.set(sms.id, await failedSims(trx, sms.id, usage.id));
    const choice = chooseSims(taken, sims, { selectedSim: usage.selectedSim, sticky, known, avoid });
    const placed = taken.filter((sms) => choice.chosen.has(sms.id));
    await recordSimDispatches(
      trx,
      usage,
      placed.map((sms) => ({ smsId: sms.id, slot: choice.chosen.get(sms.id)!, phone: sms.phone, sticky: usage.stickySender && sms.kind !== 'canary' && !sms.is_encrypted })),
      now,
    );
    await putBack(trx, choice.unplaced);
    return placed.map((sms) => ({ ...sms, dispatch_sim_slot: choice.chosen.get(sms.id)! }) as SmsRecord);
  }

  /**
   * Sticky sender: the account's devices offline for longer than FAILOVER_AFTER, whose SIMs no
   * longer keep their recipients (they go to any device, as an offline device's tasks do).
   */
  private async awayDevices(trx: Executor, accountId: string, now: number): Promise<string[]> {
    const ids = await accountDeviceIds(trx, accountId);
    return ids.filter((id) => {
      if (this.presence.isOnline(id, now)) return false;
      const offlineSince = this.presence.offlineSince(id, now) ?? this.startedAt;
      return now - offlineSince >= this.options.failoverAfterMs;
    });
  }

  /**
   * A device with room for a no_store SMS, the send logged against its limits; undefined when
   * none has room now. `deviceId` limits the choice to the device the client named, `need` to
   * devices that can do what the SMS asks (an MMS, a data or encrypted SMS).
   */
  async takeTransient(accountId: string, deviceId?: string, trx?: Executor, need?: CapabilityNeed): Promise<string | undefined> {
    const now = this.clock.now();
    const candidates = [...(this.byAccount.get(accountId) ?? [])]
      .filter(([id, device]) => (!deviceId || id === deviceId) && !device.degraded && device.blockedUntil <= now && this.reachable(id, now))
      .map(([id, device]) => ({ id, in_flight: device.inFlight }));
    const take = async (id: string) => {
      const reserve = async (executor: Executor) => {
        const usage = await deviceUsage(executor, id, now, true);
        if (!usage?.can_send_sms || (need && !canDo(usage.capabilities, need))) return false;
        // Every SIM degraded: a no_store SMS is pool work, and goes to a phone whose SIMs send.
        if (everySimDegradedOf(usage)) return false;
        if (roomFor(usage.settings, usage.usage, now, LIMIT_GRACE_MS).room <= 0) return false;
        await logDispatch(executor, id, now);
        if (usage.settings.send_jitter) await spaceNextSend(executor, id, now + jitterDelayMs(usage.settings.send_jitter));
        return true;
      };
      return trx ? reserve(trx) : this.db.transaction(reserve);
    };
    for (const id of deviceOrder(candidates, this.previous.get(accountId))) {
      if (await take(id)) {
        this.previous.set(accountId, id);
        return id;
      }
    }
    // Phones on other nodes are asked only when none here has room: the SMS then crosses Redis.
    for (const id of this.elsewhere?.candidates(accountId, deviceId) ?? []) if (await take(id)) return id;
    return undefined;
  }

  /**
   * A no_store SMS another node reserved a slot for on a phone of this node; false if it is no
   * longer here. Connected is enough: the client was answered 201 already, and the SMS exists
   * nowhere else, so a phone gone silent is still its best chance (other nodes cannot see that
   * a phone of this node went silent, see cluster/presence.ts).
   */
  acceptTransient(sms: SmsRecord): boolean {
    if (!sms.device_id || !this.devices.has(sms.device_id) || !this.link?.isReady(sms.device_id)) return false;
    void this.handTransient(sms).catch((error: unknown) => this.logger.warn({ err: error, deviceId: sms.device_id }, 'no_store task not sent'));
    return true;
  }

  /** Another node created work (several nodes): claim it for the devices held here. */
  workArrived(work: { accountIds: string[]; deviceIds: string[] }): void {
    for (const accountId of work.accountIds) void this.offerPool(accountId);
    for (const deviceId of work.deviceIds) if (this.devices.has(deviceId)) void this.claimFor(deviceId);
  }

  // Reacting to what happens (composition has these hear their events) ------------------------

  /**
   * Every status change: a failed send counts towards the device's breaker in the transaction of
   * the change; once committed, the room it frees is claimed.
   */
  readonly statusChanges: DomainEventListener<SmsStatusChange[]> = {
    inTransaction: async (trx, changes) => {
      const tripped = await recordSendOutcomes(trx, changes, this.options.breaker);
      if (tripped.length > 0) this.tripped.set(changes, tripped);
    },
    committed: (changes) => this.afterStatusChanges(changes),
  };

  /**
   * Send attempts ended. A failed one that goes round again left the device's window without a
   * status change: the room it frees is claimed here. Retried failures count towards the
   * device's breaker, and every attempt with a known SIM towards the SIM breaker, in a
   * transaction of their own (the reports are committed already).
   */
  readonly attemptsEnded = async (ended: AttemptEnded[]): Promise<void> => {
    const freed = new Map<string, number>();
    for (const end of ended) if (end.retried) freed.set(end.deviceId, (freed.get(end.deviceId) ?? 0) + 1);
    this.roomFreed(freed);
    // Most batches only sent, from SIMs with nothing counted: then there is nothing to write.
    const counts = ended.filter((end) => {
      if (end.outcome === 'failed') return true;
      const device = this.devices.get(end.deviceId);
      return end.simSlot !== null && (!device || device.countingSims.has(end.simSlot));
    });
    if (counts.length === 0) return;
    try {
      const now = this.clock.now();
      const { tripped, paused } = await this.db.transaction(async (trx) => ({
        tripped: await recordRetriedFailures(trx, counts, this.options.breaker),
        paused: await recordSimOutcomes(trx, counts, now, this.options.simBreaker),
      }));
      for (const end of counts) {
        const device = this.devices.get(end.deviceId);
        if (!device || end.simSlot === null) continue;
        if (end.outcome === 'failed') device.countingSims.add(end.simSlot);
        else device.countingSims.delete(end.simSlot);
      }
      for (const sim of paused) this.devices.get(sim.deviceId)?.countingSims.delete(sim.simSlot);
      for (const sim of paused) await this.simPaused(sim, ended);
      for (const trip of tripped) await this.pause(trip);
    } catch (error) {
      if (!this.outage.failed(error)) this.logger.error({ err: error }, 'counting send attempts failed');
    }
  };

  /**
   * SMS that left the devices' windows (`freed`: how many per device): each device has room again
   * and claims more now, unless it is paused.
   */
  private roomFreed(freed: Map<string, number>): void {
    for (const [deviceId, count] of freed) {
      const device = this.devices.get(deviceId);
      if (!device) continue;
      device.full = false;
      device.inFlight = Math.max(0, device.inFlight - count);
      if (device.blockedUntil <= this.clock.now()) void this.claimFor(deviceId);
    }
  }

  private async simPaused(sim: PausedSim, ended: AttemptEnded[]): Promise<void> {
    this.logger.warn({ deviceId: sim.deviceId, simSlot: sim.simSlot, reason: sim.reason }, 'SIM paused by the SIM breaker');
    const device = this.devices.get(sim.deviceId);
    if (device && !device.pausedSims.includes(sim.simSlot)) device.pausedSims.push(sim.simSlot);
    const accountId = device?.accountId ?? ended.find((end) => end.deviceId === sim.deviceId)?.accountId;
    if (accountId) void this.events.emit('sim.paused', { deviceId: sim.deviceId, accountId, simSlot: sim.simSlot, pausedUntil: sim.pausedUntil, reason: sim.reason });
    // No SIM left to send from: the phone is paused as the device breaker would, as long as this SIM is.
    if (sim.allPaused) await this.pause({ deviceId: sim.deviceId, reason: `every SIM paused (last: SIM ${sim.simSlot}, ${sim.reason})` }, sim.pausedUntil.getTime() - this.clock.now());
  }

  /** A device came online (connected, or was silent past DEVICE_OFFLINE_AFTER and spoke again): it may claim again. */
  spokeAgain(deviceId: string): void {
    if (this.devices.has(deviceId)) void this.claimFor(deviceId);
  }

  queued(sms: SmsRecord): void {
    if (!sms.device_id) void this.offerPool(sms.account_id);
    else if (this.devices.has(sms.device_id)) void this.claimFor(sms.device_id);
  }

  async handTransient(sms: SmsRecord): Promise<void> {
    if (sms.device_id && !this.devices.has(sms.device_id) && this.elsewhere) return this.elsewhere.hand(sms);
    this.transient.add(sms);
    await this.publish(sms);
  }

  private afterStatusChanges(changes: SmsStatusChange[]): void {
    const freed = new Map<string, number>();
    for (const change of changes) {
      const deviceId = change.sms.device_id;
      // Cancelled or expired after it was handed out, before the phone acknowledged it: tell the
      // phone, so it never starts it (a phone acknowledging it later is told again).
      const unacknowledged = change.from === 'pending';
      if (unacknowledged && this.lastPublished.has(change.sms.id) && deviceId && change.source !== 'device' && ENDED_BY_GATEWAY.has(change.reason ?? '')) {
        void this.link?.revokeTask(deviceId, change.sms.id, change.reason!).catch((error: unknown) => this.logger.warn({ err: error, deviceId }, 'revoke not sent'));
      }
      this.lastPublished.delete(change.sms.id);
      if (deviceId && IN_FLIGHT_STATUSES.includes(change.from) && !IN_FLIGHT_STATUSES.includes(newStatus(change))) {
        freed.set(deviceId, (freed.get(deviceId) ?? 0) + 1);
      }
    }
    this.roomFreed(freed);
    for (const tripped of this.tripped.get(changes) ?? []) void this.pause(tripped);
  }

  private async pause(tripped: Tripped, pauseMs = this.options.breaker.pauseMs): Promise<void> {
    try {
      const now = this.clock.now();
      const returned = await this.db.transaction((trx) => pauseDevice(trx, tripped, now, { ...this.options.breaker, pauseMs }));
      this.logger.warn({ deviceId: tripped.deviceId, reason: tripped.reason, returned }, 'device paused by the circuit breaker');
      const device = this.devices.get(tripped.deviceId);
      if (device) device.blockedUntil = now + pauseMs;
      const accountId = device?.accountId;
      if (accountId) await this.offerPool(accountId);
    } catch (error) {
      this.logger.error({ err: error, deviceId: tripped.deviceId }, 'pausing a device failed');
    }
  }

  async settingsChanged(device: DeviceRow): Promise<void> {
    const known = this.devices.get(device.id);
    if (known) {
      known.sim = { selected_sim: device.selected_sim, sim_cards: device.sim_cards };
      // New limits, window or device group: find out afresh (what part of the pool it sees too).
      known.blockedUntil = 0;
      known.full = false;
      known.reach = undefined;
    }
    await this.link?.sendSettings(device);
    if (known) await this.claimFor(device.id);
    // A device that may no longer send gave its tasks back: others may take them.
    await this.offerPool(device.account_id);
  }

  /**
   * Tasks taken back from a device that may no longer send: it is told at once to drop them (it
   * is connected, since settings reach it), so that it forgets them and takes them as new should
   * they come back to it. A phone that acknowledges one anyway is told again (status-ingestor.ts).
   */
  revokeWithdrawn(withdrawn: { deviceId: string; smsIds: string[]; reason: string }): void {
    for (const smsId of withdrawn.smsIds) {
      this.lastPublished.delete(smsId);
      void this.link?.revokeTask(withdrawn.deviceId, smsId, withdrawn.reason).catch((error: unknown) => this.logger.warn({ err: error, deviceId: withdrawn.deviceId }, 'revoke not sent'));
    }
  }

  /**
   * SIMs became degraded or recovered (fleet health, once committed). A device whose every SIM
   * is now degraded with fault send gives back the pool SMS its phone has not acknowledged: they
   * go back to the pool for other devices, and its phone is told to drop them ("tasks.withdrawn",
   * reason device_degraded); SMS named for it, canaries among them, stay. A device with a SIM that
   * recovered claims again, and its account's pool is offered again.
   */
  async healthChanged(changes: readonly HealthChange[]): Promise<void> {
    const degraded = new Map<string, string>();
    const recovered = new Map<string, string>();
    for (const change of changes) {
      if (change.state === 'degraded' && change.fault === 'send') degraded.set(change.deviceId, change.accountId);
      else if (change.state === 'healthy') recovered.set(change.deviceId, change.accountId);
    }
    const accounts = new Set<string>();
    for (const [deviceId, accountId] of degraded) {
      try {
        const withdrawn = await this.db.transaction(async (trx) => {
          // Under the device's lock: no claim of it runs meanwhile.
          if (!(await lockDevice(trx, deviceId)) || !(await everySimDegraded(trx, deviceId))) return undefined;
          const { returned } = await releaseUnacknowledged(trx, deviceId, { named: 'keep', reason: 'device_degraded', now: this.clock.now() });
          if (returned.length > 0) await this.events.written(trx, 'tasks.withdrawn', { deviceId, smsIds: returned, reason: 'device_degraded' });
          return returned;
        });
        if (!withdrawn) continue;
        const device = this.devices.get(deviceId);
        if (device) device.degraded = true;
        if (withdrawn.length > 0) this.logger.info({ deviceId, returned: withdrawn.length }, 'every SIM of a device degraded: its unacknowledged pool tasks went back to the pool');
        accounts.add(accountId);
      } catch (error) {
        if (!this.outage.failed(error)) this.logger.error({ err: error, deviceId }, 'taking back the tasks of a degraded device failed');
      }
    }
    for (const [deviceId, accountId] of recovered) {
      const device = this.devices.get(deviceId);
      if (device) {
        device.degraded = false;
        void this.claimFor(deviceId);
      }
      accounts.add(accountId);
    }
    for (const accountId of accounts) await this.offerPool(accountId);
  }

  /** The phone reconnects with its new token and is handed its tasks again then. */
  tokenReplaced(device: DeviceRow): void {
    this.link?.disconnect(device.id);
  }

  async deviceDeleted(device: DeviceRow): Promise<void> {
    this.link?.disconnect(device.id);
    this.deviceGone(device.id);
    await this.offerPool(device.account_id);
  }

  // The sweep --------------------------------------------------------------------------------

  /**
   * Expiry, failover, re-publishing and due work. Runs periodically; tests may call it. A sweep
   * already under way may have read the clock and the rows before the caller's change (an SMS
   * just due, a clock moved on): the caller gets one more sweep after it, shared by every caller
   * meanwhile, so a sweep asked for always starts after the asking.
   */
  sweep(): Promise<void> {
    if (!this.sweeping) {
      this.sweeping = this.runSweep().finally(() => (this.sweeping = undefined));
      return this.sweeping;
    }
    this.nextSweep ??= this.sweeping.then(() => {
      this.nextSweep = undefined;
      return this.stopped ? undefined : this.sweep();
    });
    return this.nextSweep;
  }

  private async runSweep(): Promise<void> {
    const sweep = ++this.sweeps;
    const startedAt = Date.now();
    let failed = false;
    const step = async (name: string, work: () => Promise<void>) => {
      try {
        await work();
      } catch (error) {
        failed = true;
        // Through a database outage every tick fails: logged once, when it starts (OutageNotice).
        if (!this.outage.failed(error)) this.logger.error({ err: error, step: name }, 'dispatch sweep step failed');
      }
    };
    await step('expire', () => this.expire());
    await step('failover', () => this.failover());
    await step('republish', () => this.republish());
    await step('due work', () => this.offerDueWork(sweep % FULL_RECHECK_SWEEPS === 0));
    if (sweep % PRUNE_EVERY_SWEEPS === 0) await step('prune', () => pruneDispatchLog(this.db, this.clock.now()));
    this.transient.forgetStale();
    if (!failed) this.outage.succeeded(startedAt);
  }

  private async expire(): Promise<void> {
    for (;;) {
      const now = this.clock.now();
      const expired = await this.db.transaction(async (trx) => {
        const changes = await expireDue(trx, now, EXPIRE_BATCH);
        await this.events.written(trx, 'sms.status_changed', changes);
        return changes;
      });
      if (expired.length < EXPIRE_BATCH) return;
    }
  }

  /** Unacknowledged tasks of devices offline for FAILOVER_AFTER go back to the pool. */
  private async failover(): Promise<void> {
    // Several nodes, Redis out of reach: a device not seen here may be online on another node,
    // and its tasks on their way. Nothing is taken back until the nodes hear each other again.
    if (!this.presence.current) return;
    const now = this.clock.now();
    for (const deviceId of await devicesWithUnacknowledged(this.db)) {
      // Asked again after every wait for the database: Redis may have gone out of reach meanwhile,
      // and a phone of another node then reads as offline here although nothing is known of it.
      if (!this.presence.current) return;
      if (this.presence.isOnline(deviceId, now)) continue;
      // After a restart nothing is known of a device until it reconnects: count from the start.
      const offlineSince = this.presence.offlineSince(deviceId, now) ?? this.startedAt;
      if (now - offlineSince < this.options.failoverAfterMs) continue;
      const { returned } = await this.db.transaction((trx) =>
        releaseUnacknowledged(trx, deviceId, { named: 'keep', reason: 'device offline', now }),
      );
      if (returned.length === 0) continue;
      this.logger.info({ deviceId, returned: returned.length }, 'unacknowledged tasks of an offline device went back to the pool');
    }
    // The pool gained work: offering it is the due-work step's job, right after this one.
  }

  private async republish(): Promise<void> {
    const now = this.clock.now();
    for (const [smsId, at] of this.lastPublished) if (now - at > this.options.ackTimeoutMs * 10) this.lastPublished.delete(smsId);
    const before = new Date(now - this.options.ackTimeoutMs);
    // Asked from the few devices holding overdue tasks, not from every device held here: the sweep
    // runs each second, and a statement naming the whole fleet costs in proportion to it.
    // A silent device is not sent its tasks again: it gets them once it speaks (the next sweep).
    const ready = (await devicesWithUnacknowledged(this.db, before)).filter((id) => this.devices.has(id) && this.reachable(id, now));
    const stale = await unacknowledgedSince(this.db, ready, before, 10 * PAGE);
    const due = stale.filter((sms) => now - (this.lastPublished.get(sms.id) ?? 0) >= this.options.ackTimeoutMs);
    for (const sms of await this.withoutOptedOut(due)) await this.publish(sms);
  }

  private async offerDueWork(recheckFull: boolean): Promise<void> {
    if (this.devices.size === 0) return;
    const now = this.clock.now();
    // A device's health may have changed on another node (its health event is heard there): its
    // next claim reads it afresh.
    if (recheckFull) {
      for (const device of this.devices.values()) {
        device.full = false;
        device.degraded = false;
      }
    }
    const work = await dueWork(this.db, now);
    const runs: Promise<void>[] = [];
    for (const deviceId of work.devices) {
      const device = this.devices.get(deviceId);
      if (device && this.mayHaveRoom(device, now)) runs.push(this.claimFor(deviceId));
    }
    for (const accountId of work.accounts) runs.push(this.offerPool(accountId));
    await Promise.all(runs);
  }

  // Publishing -------------------------------------------------------------------------------

  /**
   * Tasks handed out before their recipient sent STOP, about to be published again (a phone
   * reconnecting, an acknowledgement overdue): those no phone acknowledged end as failed_send,
   * reason recipient_opted_out, and their phone is told to drop them (it may hold them from
   * before). One statement for the page; the others are answered to publish.
   */
  private async withoutOptedOut(tasks: SmsRecord[]): Promise<SmsRecord[]> {
    const unacknowledged = tasks.filter((sms) => sms.status === 'pending').map((sms) => sms.id);
    if (unacknowledged.length === 0) return tasks;
    const now = this.clock.now();
    const refused = await this.db.transaction(async (trx) => {
      const changes = await refuseOptedOut(trx, unacknowledged, now);
      // Revoked here, whether or not this node published them: not again when the change commits.
      for (const change of changes) this.lastPublished.delete(change.sms.id);
      await this.events.written(trx, 'sms.status_changed', changes);
      return changes;
    });
    if (refused.length === 0) return tasks;
    const ended = new Set(refused.map((change) => change.sms.id));
    for (const { sms, reason } of refused) {
      const holder = sms.device_id!;
      void this.link?.revokeTask(holder, sms.id, reason!).catch((error: unknown) => this.logger.warn({ err: error, deviceId: holder }, 'revoke not sent'));
    }
    return tasks.filter((sms) => !ended.has(sms.id));
  }

  private async publish(sms: SmsRecord): Promise<void> {
    const deviceId = sms.device_id;
    if (!deviceId || !this.link?.isReady(deviceId)) return;
    const device = this.devices.get(deviceId);
    if (!device) return;
    const sent = this.sentSinceReady.get(deviceId);
    if (sent) {
      // Sent to this connection already while its ready work was read: once is enough. A retry
      // (a higher attempt) is a new task, as the phone takes it.
      const task = `${sms.id}#${sms.attempt ?? 1}`;
      if (sent.has(task)) return;
      sent.add(task);
    }
    this.lastPublished.set(sms.id, this.clock.now());
    await this.link.sendTask(deviceId, buildTask(sms, device.sim, await this.routing(sms, deviceId, device)));
  }

  /**
   * Which SIM a retry or a device with a paused SIM uses: never a paused SIM, and for a retry no
   * SIM of this device that failed the SMS before, when the device has another. Nothing to decide
   * (the usual case) costs nothing.
   */
  private async routing(sms: SmsRecord, deviceId: string, device: ReadyDevice): Promise<TaskRouting | undefined> {
    const attempt = sms.attempt ?? 1;
    // The claim chose the SIM (SIM limits, sticky sender): the task names it, every time it is published.
    const chosen = (sms as SmsRecord & { dispatch_sim_slot?: number | null }).dispatch_sim_slot;
    if (chosen !== null && chosen !== undefined) return { attempt, sim: chosen };
    if (attempt <= 1 && device.pausedSims.length === 0) return undefined;
    if (sms.retry_sim_slot !== null && sms.retry_sim_slot !== undefined) return { attempt, sim: sms.retry_sim_slot };
    const avoid = new Set(device.pausedSims);
    if (attempt > 1) for (const slot of await failedSims(this.db, sms.id, deviceId)) avoid.add(slot);
    return { attempt, avoid: [...avoid] };
  }
}
