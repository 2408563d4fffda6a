// A device's availability over a range, from its recorded changes: how long it was online, how
// long offline, and its outages. Pure: the service reads, this counts.
//
// Time before the first change the gateway recorded (a device registered during the range, or
// recorded only since the gateway began keeping changes) is neither online nor offline: unknown,
// and left out of the ratio; so is the part of a range after `now`, which has not happened yet.
import type { AvailabilityChange } from './repository.ts';

/** At most this many outages are listed (the longest ranges of a flapping phone would list thousands); outages_total counts them all. */
export const OUTAGES_LISTED = 100;

export interface Outage {
  from: Date;
  /** None while it lasts. */
  to: Date | null;
  seconds: number;
}

export interface AvailabilityReport {
  from: Date;
  to: Date;
  onlineSeconds: number;
  offlineSeconds: number;
  unknownSeconds: number;
  /** online / (online + offline); null when neither is known. */
  ratio: number | null;
  changes: number;
  outages: Outage[];
  outagesTotal: number;
}

export function availabilityReport(range: { from: Date; to: Date }, before: AvailabilityChange | undefined, changes: readonly AvailabilityChange[], now: Date): AvailabilityReport {
  const end = Math.min(range.to.getTime(), now.getTime());
  const totals = { online: 0, offline: 0, unknown: 0 };
  const outages: Outage[] = [];
  let state: boolean | undefined = before?.online;
  let since = range.from.getTime();
  let outageFrom: number | undefined = state === false ? since : undefined;
  const spend = (until: number) => {
    const ms = Math.max(0, until - since);
    totals[state === undefined ? 'unknown' : state ? 'online' : 'offline'] += ms;
  };
  for (const change of changes) {
    const at = Math.min(change.at.getTime(), end);
    spend(at);
    if (state === false && change.online && outageFrom !== undefined) {
      outages.push({ from: new Date(outageFrom), to: new Date(at), seconds: seconds(at - outageFrom) });
      outageFrom = undefined;
    }
    if (state !== false && !change.online) outageFrom = at;
    state = change.online;
    since = at;
  }
  spend(end);
  totals.unknown += Math.max(0, range.to.getTime() - Math.max(end, range.from.getTime()));
  if (state === false && outageFrom !== undefined) {
    // Still offline at the end of the range: ongoing when the range reaches now.
    outages.push({ from: new Date(outageFrom), to: end < now.getTime() ? new Date(end) : null, seconds: seconds(end - outageFrom) });
  }
  const known = totals.online + totals.offline;
  return {
    from: range.from,
    to: range.to,
    onlineSeconds: seconds(totals.online),
    offlineSeconds: seconds(totals.offline),
    unknownSeconds: seconds(totals.unknown),
    ratio: known === 0 ? null : Math.round((totals.online / known) * 10_000) / 10_000,
    changes: changes.length,
    outages: outages.slice(-OUTAGES_LISTED),
    outagesTotal: outages.length,
  };
}

function seconds(ms: number): number {
  return Math.round(ms / 1000);
}
