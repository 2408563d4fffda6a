// How many more tasks a device may take now, and when to ask again if none. Pure: the claim
// reads the device's settings and usage under a row lock, and this decides (README "Delivery").
//
// A device has room when its tasks in flight are below its send_window, each rate limit
// (sends in the last minute / hour / day, rolling) allows another send, it is not paused by the
// circuit breaker, its radio did not say it cannot send, and the local time is outside its quiet
// hours.
import type { QuietHours, SendJitter } from '../devices/types.ts';

export type { QuietHours, SendJitter };

export interface Limits {
  per_minute: number | null;
  per_hour: number | null;
  per_day: number | null;
}

export interface PacingSettings {
  send_window: number;
  limits: Limits;
  quiet_hours: QuietHours | null;
  paused_until: Date | null;
  /** A random pause between two tasks handed to the device; null or absent: none. */
  send_jitter?: SendJitter | null;
  /** The device is handed no task before this (the last pause drawn from send_jitter). */
  next_send_at?: Date | null;
  /** Its agent's last heartbeat said the radio cannot send (devices/radio.ts): no task until one says it can. */
  radio_cannot_send?: boolean;
}

export interface DeviceUsage {
  inFlight: number;
  /** Tasks handed to the device in the last minute / hour / day, and the oldest of each. */
  lastMinute: number;
  lastHour: number;
  lastDay: number;
  oldestInMinute: Date | null;
  oldestInHour: Date | null;
  oldestInDay: Date | null;
}

export type Blocker =
  | 'radio'
  | 'degraded'
  | 'paused'
  | 'quiet_hours'
  | 'jitter'
  | 'window'
  | 'per_minute'
  | 'per_hour'
  | 'per_day'
  | 'sim_per_day'
  | 'sim_per_month'
  | 'sim_recipients_per_month';

export interface Room {
  /** Tasks the device may take now. */
  room: number;
  /** Why it may take none (the first reason found). */
  blockedBy?: Blocker;
  /** When a time-based block ends (ms epoch); absent when only finished tasks can open room. */
  retryAt?: number;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/**
 * `graceMs`: how much further back than a minute / hour / day the usage was counted (see
 * repository LIMIT_GRACE_MS); a slot opens only once the oldest send is that much older.
 */
export function roomFor(settings: PacingSettings, usage: DeviceUsage, now: number, graceMs = 0): Room {
  // No time ends it: the next heartbeat that says the radio can send does.
  if (settings.radio_cannot_send) return { room: 0, blockedBy: 'radio' };
  if (settings.paused_until && settings.paused_until.getTime() > now) {
    return { room: 0, blockedBy: 'paused', retryAt: settings.paused_until.getTime() };
  }
  if (settings.quiet_hours) {
    const endsIn = quietTimeLeft(settings.quiet_hours, now);
    if (endsIn > 0) return { room: 0, blockedBy: 'quiet_hours', retryAt: now + endsIn };
  }
  if (settings.next_send_at && settings.next_send_at.getTime() > now) {
    return { room: 0, blockedBy: 'jitter', retryAt: settings.next_send_at.getTime() };
  }
  const { limits } = settings;
  const checks: [Blocker, number | null, number, Date | null, number][] = [
    ['per_minute', limits.per_minute, usage.lastMinute, usage.oldestInMinute, MINUTE],
    ['per_hour', limits.per_hour, usage.lastHour, usage.oldestInHour, HOUR],
    ['per_day', limits.per_day, usage.lastDay, usage.oldestInDay, DAY],
  ];
  let room = settings.send_window - usage.inFlight;
  let blockedBy: Blocker | undefined = room <= 0 ? 'window' : undefined;
  let retryAt: number | undefined;
  for (const [name, limit, used, oldest, span] of checks) {
    if (limit === null) continue;
    const left = limit - used;
    if (left <= 0) {
      // The oldest send in the window ages out then: at least one slot opens.
      const opensAt = (oldest?.getTime() ?? now) + span + graceMs;
      retryAt = Math.max(retryAt ?? 0, opensAt);
      blockedBy ??= name;
    }
    room = Math.min(room, left);
  }
  // With send_jitter the device is handed one task at a time, each after its own pause.
  if (room > 0) return { room: settings.send_jitter ? 1 : room };
  return { room: 0, blockedBy: blockedBy ?? 'window', ...(retryAt !== undefined ? { retryAt } : {}) };
}

/** The pause drawn after a task is handed to a device with send_jitter, in milliseconds. */
export function jitterDelayMs(jitter: SendJitter, random: () => number = Math.random): number {
  const span = jitter.max_seconds - jitter.min_seconds;
  return Math.round((jitter.min_seconds + random() * span) * 1000);
}

/** Milliseconds until the quiet hours end, or 0 when `now` is outside them. */
export function quietTimeLeft(quiet: QuietHours, now: number): number {
  const from = minutesOf(quiet.from);
  const to = minutesOf(quiet.to);
  const { minutes, seconds } = localTime(quiet.timezone, now);
  const inside = from < to ? minutes >= from && minutes < to : minutes >= from || minutes < to;
  if (!inside) return 0;
  const minutesLeft = (to - minutes + 24 * 60) % (24 * 60);
  return Math.max(1, minutesLeft * MINUTE - seconds * 1000);
}

export function isValidTimeOfDay(value: string): boolean {
  return /^([01]\d|2[0-3]):[0-5]\d$/.test(value);
}

function minutesOf(hhmm: string): number {
  const [h, m] = hhmm.split(':').map(Number);
  return h! * 60 + m!;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

/** Minutes past local midnight (and seconds into the minute) in the zone at `now`. */
function localTime(timezone: string, now: number): { minutes: number; seconds: number } {
  let format = formatters.get(timezone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-GB', { timeZone: timezone, hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' });
    formatters.set(timezone, format);
  }
  const parts = Object.fromEntries(format.formatToParts(new Date(now)).map((part) => [part.type, part.value]));
  return { minutes: Number(parts.hour) * 60 + Number(parts.minute), seconds: Number(parts.second) };
}
