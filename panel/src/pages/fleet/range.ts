// The Fleet page's range as the user picks it (whole days in the browser's zone) and as the API
// takes it (instants): from the first day's midnight to the midnight after the last day.

const DAY_MS = 24 * 60 * 60 * 1000;
export const DEFAULT_DAYS = 7;

export interface DayRange {
  /** yyyy-mm-dd, as a date input holds it. */
  fromDay: string;
  toDay: string;
}

/** The last 7 days, today included. */
export function lastDays(days = DEFAULT_DAYS, now = new Date()): DayRange {
  return { fromDay: dayOf(new Date(now.getTime() - (days - 1) * DAY_MS)), toDay: dayOf(now) };
}

/** The API's from and to; an empty or unreadable day is left for the API's default. */
export function instantsOf(range: DayRange): { from?: string; to?: string } {
  const from = midnight(range.fromDay, 0);
  const to = midnight(range.toDay, 1);
  return { ...(from ? { from } : {}), ...(to ? { to } : {}) };
}

function midnight(day: string, daysAfter: number): string | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  if (!match) return undefined;
  const date = new Date(Number(match[1]), Number(match[2]) - 1, Number(match[3]) + daysAfter);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

function dayOf(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}
