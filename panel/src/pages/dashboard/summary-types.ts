// The shape GET /stats/summary answers (src/modules/stats/schema.ts).

export interface HourlyOutcomes {
  /** Start of the UTC hour. */
  hour: string;
  sent: number;
  failed: number;
}

export interface Summary {
  devices: { online: number; offline: number };
  /** SMS created since `since` (today's UTC midnight), by their status now. */
  sms: { since: string; by_status: Record<string, number> };
  /** The last 24 hours, oldest first; the last is the hour under way. */
  hourly: HourlyOutcomes[];
  webhooks: { failing: number; ids: string[] };
}
