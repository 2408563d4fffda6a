// Limits carriers put on one SIM (a device's sim_limits), and which SIM each SMS a claim took is
// handed to. Pure: the claim reads the usage under the device lock, and this decides.
//
// A SIM may be named for a task while it sent fewer than per_day tasks in the last 24 hours
// (rolling, as the device's per_day) and fewer than per_month in the calendar month (UTC); a new
// recipient only while it sent to fewer than recipients_per_month distinct recipients this month
// (one it already sent to this month costs nothing more). A device whose every SIM that may send
// is at a limit is blocked like one at its own limit; the others simply do not name the SIM.
import { randomInt } from 'node:crypto';
import type { SimLimit, SimLimits } from '../devices/types.ts';

export type SimBlocker = 'sim_per_day' | 'sim_per_month' | 'sim_recipients_per_month';

/** One SIM's usage, as the claim reads it (only SIMs with limits are read). */
export interface SimUsage {
  slot: number;
  /** Tasks handed to it in the last 24 hours, at most per_day of them read. */
  day: number;
  oldestDay: Date | null;
  monthSent: number;
  monthRecipients: number;
}

/** What a SIM may still take now; Infinity where it has no such limit. */
export interface SimState {
  slot: number;
  room: number;
  recipientsLeft: number;
}

export interface SimRoom {
  /** Tasks the device's SIMs may take together; Infinity when one has no limit. */
  room: number;
  /** The SIMs that may send (reported, not paused or degraded), lowest slot first. */
  sims: SimState[];
  /** Why no SIM may take a task (room 0), or why none may take a new recipient. */
  blockedBy?: SimBlocker;
  /** When the first SIM at a limit opens again (ms epoch). */
  retryAt?: number;
  /** Every SIM with room is at its recipients limit: only recipients they sent to this month. */
  knownRecipientsOnly: boolean;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** The first day of the calendar month (UTC) of `now`, as the counters key it: YYYY-MM-01. */
export function monthOf(now: number): string {
  return new Date(now).toISOString().slice(0, 7) + '-01';
}

function nextMonthStart(now: number): number {
  const date = new Date(now);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1);
}

export function hasSimLimits(limits: SimLimits | null | undefined): boolean {
  return limits !== null && limits !== undefined && Object.keys(limits).length > 0;
}

/**
 * The room the SIMs leave the device. `open`: the SIMs reported and not paused or degraded.
 * `graceMs`: how much further back than 24 hours the day was counted (repository LIMIT_GRACE_MS).
 */
export function simRoom(open: number[], limits: SimLimits, usage: SimUsage[], now: number, graceMs = 0): SimRoom {
  const used = new Map(usage.map((sim) => [sim.slot, sim]));
  let retryAt: number | undefined;
  let firstBlocker: SimBlocker | undefined;
  const sims: SimState[] = [];
  for (const slot of [...open].sort((a, b) => a - b)) {
    const limit: SimLimit = limits[String(slot)] ?? {};
    const sim = used.get(slot);
    const dayLeft = limit.per_day === undefined ? Infinity : limit.per_day - (sim?.day ?? 0);
    const monthLeft = limit.per_month === undefined ? Infinity : limit.per_month - (sim?.monthSent ?? 0);
    const recipientsLeft = limit.recipients_per_month === undefined ? Infinity : limit.recipients_per_month - (sim?.monthRecipients ?? 0);
    const room = Math.max(0, Math.min(dayLeft, monthLeft));
    if (room === 0) {
      // The day opens when its oldest send ages out; the month when the next begins.
      const dayOpens = dayLeft <= 0 ? (sim?.oldestDay?.getTime() ?? now) + DAY_MS + graceMs : 0;
      const opens = Math.max(dayOpens, monthLeft <= 0 ? nextMonthStart(now) : 0);
      retryAt = Math.min(retryAt ?? Infinity, opens);
      firstBlocker ??= monthLeft <= 0 ? 'sim_per_month' : 'sim_per_day';
    }
    sims.push({ slot, room, recipientsLeft: Math.max(0, recipientsLeft) });
  }
  const withRoom = sims.filter((sim) => sim.room > 0);
  const room = withRoom.reduce((sum, sim) => sum + sim.room, 0);
  const knownRecipientsOnly = withRoom.length > 0 && withRoom.every((sim) => sim.recipientsLeft <= 0);
  if (sims.length > 0 && room === 0) return { room: 0, sims, blockedBy: firstBlocker!, ...(retryAt !== undefined ? { retryAt } : {}), knownRecipientsOnly: false };
  return { room: sims.length === 0 ? Infinity : room, sims, ...(knownRecipientsOnly ? { blockedBy: 'sim_recipients_per_month' as const } : {}), knownRecipientsOnly };
}

/** An SMS a claim took, as choosing its SIM needs it. */
export interface TakenSms {
  id: string;
  phone: string;
  /** The SIM its client named (legacy to_sim, a canary's sender SIM); null: any. */
  sim_slot: number | null;
  kind: string;
  is_encrypted: boolean;
  /** The SIM a retry on its named device must use; null: any. */
  retry_sim_slot?: number | null | undefined;
}

export interface SimChoice {
  /** SMS id -> the SIM it is handed to. */
  chosen: Map<string, number>;
  /** SMS no SIM may take now: they go back where they waited. */
  unplaced: string[];
}

/**
 * Which SIM each SMS is handed to, in the order taken: the SIM its client named; a retry's; the
 * SIM its recipient last got an SMS from (`sticky`, this device's); the device's selected_sim;
 * else one of the SIMs with room (at random, as -1 picks). A SIM is named only while it has room,
 * and for a new recipient while its recipients limit allows. A canary keeps its SIM whatever its
 * limits: its round measures that SIM. `known`: recipient -> the SIMs that sent to it this month.
 * `avoid`: SMS id -> SIMs that failed it before (a retry).
 */
export function chooseSims(
  taken: TakenSms[],
  sims: SimState[],
  options: { selectedSim: number; sticky: Map<string, number>; known: Map<string, Set<number>>; avoid?: Map<string, number[]>; random?: (n: number) => number },
): SimChoice {
  const state = new Map(sims.map((sim) => [sim.slot, { ...sim }]));
  const random = options.random ?? ((n: number) => randomInt(n));
  const choice: SimChoice = { chosen: new Map(), unplaced: [] };
  for (const sms of taken) {
    const known = options.known.get(sms.phone) ?? new Set<number>();
    const take = (slot: number) => {
      const sim = state.get(slot);
      if (sim) {
        sim.room -= 1;
        if (!known.has(slot)) sim.recipientsLeft -= 1;
      }
      known.add(slot);
      options.known.set(sms.phone, known);
      choice.chosen.set(sms.id, slot);
    };
    if (sms.kind === 'canary' && sms.sim_slot !== null) {
      take(sms.sim_slot);
      continue;
    }
    const avoid = options.avoid?.get(sms.id) ?? [];
    const fits = (slot: number) => {
      const sim = state.get(slot);
      return sim !== undefined && sim.room > 0 && (known.has(slot) || sim.recipientsLeft > 0) && !avoid.includes(slot);
    };
    const named = sms.sim_slot ?? sms.retry_sim_slot ?? null;
    if (named !== null) {
      // A SIM its client named that may not be chosen (paused, degraded) stays named, as ever.
      if (!state.has(named) || fits(named)) take(named);
      else choice.unplaced.push(sms.id);
      continue;
    }
    const sticky = sms.is_encrypted ? undefined : options.sticky.get(sms.phone);
    if (sticky !== undefined && fits(sticky)) {
      take(sticky);
      continue;
    }
    if (options.selectedSim >= 0 && fits(options.selectedSim)) {
      take(options.selectedSim);
      continue;
    }
    const open = [...state.keys()].filter(fits);
    if (open.length === 0) choice.unplaced.push(sms.id);
    else take(options.selectedSim === -1 ? open[random(open.length)]! : open[0]!);
  }
  return choice;
}
