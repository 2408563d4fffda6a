// What the fleet reports read of other modules' tables: the canary probes (fleet health), the SIMs'
// degraded state (sim_health, delivery's) and the devices' names (devices). Reads only, each one
// statement on an index, for a page, a report or a scrape; none runs on the send path.
import type { Sample } from '../../common/metrics.ts';
import type { Executor } from '../../storage/database.ts';

export interface CanaryFigures {
  deviceId: string;
  /** Null on the device's own row (all its SIMs). */
  simSlot: number | null;
  wholeDevice: boolean;
  /** Canaries it sent whose probe ended (passed or failed) in the range. */
  ended: number;
  passed: number;
}

/**
 * The account's canary probes created in [from, to) that ended, per sending device and SIM and per
 * sending device (index canary_probes_account).
 */
export async function countCanariesPerSender(db: Executor, accountId: string, from: Date, to: Date): Promise<CanaryFigures[]> {
  const { rows } = await db.raw<{ rows: { device_id: string; sim_slot: number | null; whole_device: boolean; ended: number; passed: number }[] }>(
    `select sender_device_id as device_id, sender_sim as sim_slot, grouping(sender_sim) = 1 as whole_device,
            count(*)::int as ended, count(*) filter (where result = 'passed')::int as passed
       from canary_probes
      where account_id = ? and created_at >= ? and created_at < ? and result <> 'pending'
      group by grouping sets ((sender_device_id, sender_sim), (sender_device_id))`,
    [accountId, from, to],
  );
  return rows.map((row) => ({
    deviceId: row.device_id,
    simSlot: row.whole_device ? null : Number(row.sim_slot),
    wholeDevice: row.whole_device,
    ended: Number(row.ended),
    passed: Number(row.passed),
  }));
}

export interface NamedDevice {
  id: string;
  name: string;
  deleted: boolean;
}

/** The account's devices not deleted, and of its deleted ones those in `alsoIds` (they have figures to show). */
export async function devicesToReport(db: Executor, accountId: string, alsoIds: string[]): Promise<NamedDevice[]> {
  const { rows } = await db.raw<{ rows: { id: string; name: string; name_custom: string | null; deleted_at: Date | null }[] }>(
    `select id, name, name_custom, deleted_at from devices
      where account_id = ? and (deleted_at is null or id = any(?::uuid[]))
      order by created_at, id`,
    [accountId, alsoIds],
  );
  // An empty name_custom stands for the system name, as the device's own view shows it.
  return rows.map((row) => ({ id: row.id, name: row.name_custom || row.name, deleted: row.deleted_at !== null }));
}

/** The account's live devices with at least one degraded SIM, by name, and how many of their SIMs are degraded. */
export async function degradedDevices(db: Executor, accountId: string): Promise<(NamedDevice & { degradedSims: number })[]> {
  const { rows } = await db.raw<{ rows: { id: string; name: string; name_custom: string | null; degraded_sims: number }[] }>(
    `select d.id, d.name, d.name_custom, count(*)::int as degraded_sims
       from devices d join sim_health h on h.device_id = d.id
      where d.account_id = ? and d.deleted_at is null and h.degraded_since is not null
      group by d.id
      order by d.created_at, d.id`,
    [accountId],
  );
  return rows.map((row) => ({ id: row.id, name: row.name_custom || row.name, deleted: false, degradedSims: Number(row.degraded_sims) }));
}

/**
 * The SIMs the health judge knows of, per account: state="degraded" (degraded_since set) or
 * "healthy" (a row and no degradation). One statement at scrape time over sim_health and the live
 * devices; labelled by account only, never by device, so a large fleet adds no series per phone.
 */
export async function simHealthPerAccount(db: Executor): Promise<Sample[]> {
  const { rows } = await db.raw<{ rows: { account_id: string; degraded: boolean; n: number }[] }>(
    `select d.account_id, h.degraded_since is not null as degraded, count(*)::int as n
       from sim_health h join devices d on d.id = h.device_id
      where d.deleted_at is null
      group by 1, 2`,
  );
  // Both states of every account that has SIMs known, 0 included: a series that vanishes when the
  // last degraded SIM recovers would leave an alert on the old value.
  const counts = new Map<string, { healthy: number; degraded: number }>();
  for (const row of rows) {
    const account = counts.get(row.account_id) ?? { healthy: 0, degraded: 0 };
    account[row.degraded ? 'degraded' : 'healthy'] += Number(row.n);
    counts.set(row.account_id, account);
  }
  return [...counts].flatMap(([account, { healthy, degraded }]) => [
    { labels: { account, state: 'healthy' }, value: healthy },
    { labels: { account, state: 'degraded' }, value: degraded },
  ]);
}
