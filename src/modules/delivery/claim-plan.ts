// What one claim may take, from the device's pacing (pacing.ts), its SIMs' health and its SIMs'
// carrier limits (sim-caps.ts). Pure: the claim reads the usage under the device lock.
//
// - Every SIM the device reported is degraded with fault send: it takes only the canary SMS named
//   for it (the next round tests it again); the rest waits (blocked_by degraded), and its pool
//   SMS go to other devices.
// - A device with SIM limits, or of an account with sticky sender, has its SIMs chosen at the
//   claim, so that each task counts against the SIM that sends it: the claim takes no more than
//   its SIMs have room for, leaves SMS naming a SIM at a limit where they wait, and with sticky
//   sender leaves out pool SMS whose recipient waits for another device's SIM.
// - Any other device claims as it always has: nothing here costs it a statement.
import type { ClaimFilters, ClaimingDevice, SqlPart } from './repository.ts';
import { knownRecipientsOf, namedSimsNotIn, notStickyElsewhere } from './repository.ts';
import type { Blocker, Room } from './pacing.ts';
import { hasSimLimits, monthOf, simRoom, type SimState } from './sim-caps.ts';

export interface ClaimPlan {
  want: number;
  blockedBy?: Blocker;
  retryAt?: number;
  filters: ClaimFilters;
  /** The SIMs the claim chooses among; undefined: the SIM is chosen when the task is published. */
  sims?: SimState[];
  /** Only canaries named for it (every SIM degraded). */
  canaryOnly: boolean;
  /** The pool this claim sees is its own (sticky sender, recipients limit): finding it empty says nothing of other devices'. */
  ownPool: boolean;
}

/** Every SIM the device reported is degraded with fault send. */
export function everySimDegraded(usage: Pick<ClaimingDevice, 'reportedSims' | 'degradedSims'>): boolean {
  return usage.reportedSims.length > 0 && usage.reportedSims.every((slot) => usage.degradedSims.includes(slot));
}

/** Whether the claim chooses the device's SIMs itself. */
export function choosesSims(usage: ClaimingDevice): boolean {
  return usage.reportedSims.length > 0 && (usage.stickySender || hasSimLimits(usage.simLimits));
}

/** SIMs that may be named: reported, not paused by the SIM breaker, not degraded. */
export function openSims(usage: Pick<ClaimingDevice, 'reportedSims' | 'pausedSims' | 'degradedSims'>): number[] {
  return usage.reportedSims.filter((slot) => !usage.pausedSims.includes(slot) && !usage.degradedSims.includes(slot));
}

/**
 * `away`: with sticky sender, the account's devices offline past the bound, whose SIMs hold no
 * recipient any more.
 */
export function claimPlan(usage: ClaimingDevice, room: Room, now: number, graceMs: number, away: string[] = []): ClaimPlan {
  const plan: ClaimPlan = {
    want: room.room,
    ...(room.blockedBy ? { blockedBy: room.blockedBy } : {}),
    ...(room.retryAt !== undefined ? { retryAt: room.retryAt } : {}),
    filters: {},
    canaryOnly: false,
    ownPool: false,
  };
  if (everySimDegraded(usage)) {
    plan.canaryOnly = true;
    plan.filters = { canaryOnly: true };
    plan.blockedBy ??= 'degraded';
    return plan;
  }
  // A recipient held by another device's SIM waits for it, whatever SIMs this device has.
  const stickyElsewhere = usage.stickySender ? [notStickyElsewhere(usage.id, away, now)] : [];
  const open = openSims(usage);
  // No SIM reported, or every one paused (the SIM breaker paused the device too): the claim names
  // no SIM, the task names what it asks.
  if (!choosesSims(usage) || open.length === 0) {
    if (stickyElsewhere.length > 0) {
      plan.filters = { pool: stickyElsewhere };
      plan.ownPool = true;
    }
    return plan;
  }
  const sims = simRoom(open, usage.simLimits, usage.simUsage, now, graceMs);
  const named: SqlPart[] = [];
  const pool: SqlPart[] = [];
  const withRoom = sims.sims.filter((sim) => sim.room > 0).map((sim) => sim.slot);
  const atLimit = sims.sims.filter((sim) => sim.room === 0).map((sim) => sim.slot);
  if (atLimit.length > 0) named.push(namedSimsNotIn(atLimit));
  if (sims.knownRecipientsOnly) {
    const known = knownRecipientsOf(usage.id, monthOf(now), withRoom);
    named.push(known);
    pool.push(known);
    plan.ownPool = true;
  }
  if (stickyElsewhere.length > 0) {
    pool.push(...stickyElsewhere);
    plan.ownPool = true;
  }
  plan.sims = sims.sims;
  plan.filters = { named, pool, logLater: true };
  if (sims.room === 0) {
    plan.want = 0;
    plan.blockedBy ??= sims.blockedBy;
    if (sims.retryAt !== undefined) plan.retryAt = Math.max(plan.retryAt ?? 0, sims.retryAt);
  } else {
    plan.want = Math.min(plan.want, sims.room);
  }
  return plan;
}

/** What GET /devices/{id} shows as blocked_by: the pacing's reason, the device's SIMs', or null. */
export function queueBlocker(usage: ClaimingDevice, room: Room, now: number, graceMs: number): Blocker | null {
  if (room.blockedBy === 'radio') return 'radio';
  if (everySimDegraded(usage)) return 'degraded';
  if (room.blockedBy) return room.blockedBy;
  if (!choosesSims(usage)) return null;
  const open = openSims(usage);
  if (open.length === 0) return null;
  return simRoom(open, usage.simLimits, usage.simUsage, now, graceMs).blockedBy ?? null;
}
