// The SQL of the health judge and of a device's health: the recent canary probes (this module's
// table), each SIM's degraded state (sim_health, delivery's table: its degraded_* columns are
// written here alone, see the migration that added them), and what the device's SMS and received
// SMS say per SIM over the window the health answer covers.
import type { Executor } from '../../../storage/database.ts';

/** A canary probe as the judge and the health answer read it. */
export interface ProbeRow {
  round_number: number;
  sender_device_id: string;
  sender_sim: number;
  receiver_device_id: string;
  receiver_sim: number;
  created_at: Date;
  result: 'pending' | 'passed' | 'failed';
  failure: string | null;
  ended_at: Date | null;
  round_trip_ms: number | null;
}

/** A SIM's degraded state, as sim_health keeps it. */
export interface DegradedRow {
  device_id: string;
  sim_slot: number;
  degraded_since: Date | null;
  degraded_reason: string | null;
  degraded_fault: 'send' | 'receive' | null;
  /** When it last stopped being degraded; null: never. */
  cleared_at: Date | null;
}

const PROBE_COLUMNS = `round_number, sender_device_id, sender_sim, receiver_device_id, receiver_sim, created_at, result, failure, ended_at, round_trip_ms`;

function probe(row: ProbeRow): ProbeRow {
  return { ...row, round_number: Number(row.round_number), sender_sim: Number(row.sender_sim), receiver_sim: Number(row.receiver_sim) };
}

/**
 * The account's ended probes created since `since`, of its last `rounds` rounds: what the judge
 * weighs. One statement on canary_probes_account.
 */
export async function endedProbes(db: Executor, accountId: string, since: Date, rounds: number): Promise<ProbeRow[]> {
  const { rows } = await db.raw<{ rows: ProbeRow[] }>(
    `select ${PROBE_COLUMNS} from canary_probes p
      where p.account_id = ? and p.created_at > ? and p.result <> 'pending'
        and p.round_number > (select coalesce(max(round_number), 0) from canary_probes where account_id = ? and created_at > ?) - ?
      order by p.created_at`,
    [accountId, since, accountId, since, rounds],
  );
  return rows.map(probe);
}

/** The device's probes, as sender or receiver, newest first. */
export async function probesOfDevice(db: Executor, accountId: string, deviceId: string, since: Date, limit: number): Promise<ProbeRow[]> {
  const { rows } = await db.raw<{ rows: ProbeRow[] }>(
    `select ${PROBE_COLUMNS} from canary_probes
      where account_id = ? and created_at > ? and (sender_device_id = ? or receiver_device_id = ?)
      order by created_at desc, round_number desc
      limit ?`,
    [accountId, since, deviceId, deviceId, limit],
  );
  return rows.map(probe);
}

/** The degraded state of these devices' SIMs (those with a sim_health row). */
export async function degradedStates(db: Executor, deviceIds: readonly string[]): Promise<DegradedRow[]> {
  if (deviceIds.length === 0) return [];
  const { rows } = await db.raw<{ rows: DegradedRow[] }>(
    `select device_id, sim_slot, degraded_since, degraded_reason, degraded_fault, cleared_at from sim_health where device_id = any(?::uuid[]) order by device_id, sim_slot`,
    [[...deviceIds]] as never,
  );
  return rows.map((row) => ({ ...row, sim_slot: Number(row.sim_slot) }));
}

/**
 * Marks a SIM degraded, making its row if it has none; true when this call changed it (a SIM
 * already degraded, by this or a concurrent judge, is left as it is and not announced twice).
 */
export async function markDegraded(trx: Executor, sim: { deviceId: string; simSlot: number; fault: 'send' | 'receive'; reason: string; at: Date }): Promise<boolean> {
  const { rows } = await trx.raw<{ rows: unknown[] }>(
    `insert into sim_health (device_id, sim_slot, degraded_since, degraded_reason, degraded_fault) values (?, ?, ?, ?, ?)
       on conflict (device_id, sim_slot) do update
         set degraded_since = excluded.degraded_since, degraded_reason = excluded.degraded_reason, degraded_fault = excluded.degraded_fault
         where sim_health.degraded_since is null
     returning sim_slot`,
    [sim.deviceId, sim.simSlot, sim.at, sim.reason, sim.fault],
  );
  return rows.length > 0;
}

/**
 * Clears the degraded state of the device's SIMs (`simSlot` one of them; undefined: every one);
 * answers the SIMs it changed with the fault they had. cleared_at keeps when: failures of canaries
 * sent before then are not weighed again, so an owner's word is not overturned by the evidence it
 * answered; degraded_reason says why it was cleared.
 */
export async function clearDegraded(trx: Executor, deviceId: string, at: Date, reason: string, simSlot?: number): Promise<{ sim_slot: number; fault: 'send' | 'receive' | null }[]> {
  const { rows } = await trx.raw<{ rows: { sim_slot: number; fault: 'send' | 'receive' | null }[] }>(
    `with old as (
       select sim_slot, degraded_fault as fault from sim_health
        where device_id = ? and degraded_since is not null ${simSlot === undefined ? '' : 'and sim_slot = ?'}
        for update)
     update sim_health h set degraded_since = null, degraded_reason = ?, degraded_fault = null, cleared_at = ?
       from old
      where h.device_id = ? and h.sim_slot = old.sim_slot
     returning h.sim_slot, old.fault`,
    simSlot === undefined ? [deviceId, reason, at, deviceId] : [deviceId, simSlot, reason, at, deviceId],
  );
  return rows.map((row) => ({ sim_slot: Number(row.sim_slot), fault: row.fault }));
}

/** When a SIM that is not degraded was last cleared (undefined: never, or it is degraded now). */
export function clearedAt(row: Pick<DegradedRow, 'degraded_since' | 'cleared_at'>): number | undefined {
  if (row.degraded_since !== null || row.cleared_at === null) return undefined;
  return row.cleared_at.getTime();
}

/** What the device's SMS say of one SIM over the window (canary SMS not counted). */
export interface SendFigures {
  /** The SIM slot the phone said it sent from, else the one asked for; null when neither is known. */
  sim_slot: number | null;
  sent: number;
  failed_send: number;
  delivered: number;
  undelivered: number;
  last_sent_at: Date | null;
}

/**
 * The device's SMS created since `since`, by SIM. "Sent" is any SMS the phone sent, whatever its
 * delivery report said after; a send that failed counts as failed_send.
 */
export async function sendFigures(db: Executor, accountId: string, deviceId: string, since: Date): Promise<SendFigures[]> {
  const { rows } = await db.raw<{ rows: SendFigures[] }>(
    `select coalesce(s.sent_sim_slot, s.retry_sim_slot, s.sim_slot) as sim_slot,
            count(*) filter (where s.status in ('sent', 'delivered', 'undelivered', 'failed_delivery'))::int as sent,
            count(*) filter (where s.status = 'failed_send')::int as failed_send,
            count(*) filter (where s.status = 'delivered')::int as delivered,
            count(*) filter (where s.status = 'undelivered')::int as undelivered,
            -- The last change of an SMS sent: its send, or a delivery report soon after; close enough
            -- to say how long a SIM has been quiet, without reading the status history.
            max(s.updated_at) filter (where s.status in ('sent', 'delivered', 'undelivered', 'failed_delivery')) as last_sent_at
       from sms s
      where s.account_id = ? and s.device_id = ? and s.created_at > ? and s.kind <> 'canary'
      group by 1`,
    [accountId, deviceId, since],
  );
  return rows.map((row) => ({ ...row, sim_slot: row.sim_slot === null ? null : Number(row.sim_slot) }));
}

/** When the device last received an SMS on each SIM since `since` (null slot: the phone did not say). */
export async function lastReceived(db: Executor, accountId: string, deviceId: string, since: Date): Promise<{ sim_slot: number | null; last_received_at: Date }[]> {
  const { rows } = await db.raw<{ rows: { sim_slot: number | null; last_received_at: Date }[] }>(
    `select sim_slot, max(received_at) as last_received_at from incoming_sms
      where account_id = ? and device_id = ? and created_at > ?
      group by sim_slot`,
    [accountId, deviceId, since],
  );
  return rows.map((row) => ({ ...row, sim_slot: row.sim_slot === null ? null : Number(row.sim_slot) }));
}
