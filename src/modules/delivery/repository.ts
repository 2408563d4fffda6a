// Queries of the delivery loop: Postgres is the queue (architecture decision 1). Time always comes
// from the caller (the gateway's clock), never from now(), so pacing can be tested.
import type { Executor } from '../../storage/database.ts';
import { columnsOf } from '../../storage/unnest-columns.ts';
import type { SmsRecord } from '../messages/types.ts';
import type { SmsStatus } from '../messages/status.ts';
import type { SmsSnapshot, SmsStatusChange } from './status-change.ts';
import type { DeviceUsage, PacingSettings, QuietHours, SendJitter } from './pacing.ts';
import type { SimCard, SimLimits } from '../devices/types.ts';
import { hasSimLimits, monthOf, type SimUsage } from './sim-caps.ts';
import type { DeviceCapabilities } from '../devices/capabilities.ts';
import { radioCannotSend, type DeviceRadio } from '../devices/radio.ts';
import { lockLiveDevice, setNextSendAt } from '../devices/shared-queries.ts';
import { attemptsUpsert, writeAttempts, type AttemptWrite } from './attempts.ts';

const DAY_MS = 24 * 60 * 60 * 1000;
/**
 * Each rate-limit window looks back this much further: a task reaches the phone a little after
 * its claim is recorded (commit, publish), and the phone must never see more than its limit in
 * any rolling minute, hour or day by its own clock.
 */
export const LIMIT_GRACE_MS = 1_000;

export interface ClaimingDevice {
  id: string;
  account_id: string;
  can_send_sms: boolean;
  settings: PacingSettings;
  usage: DeviceUsage;
  /** SIM slots the SIM breaker paused: no task names them (sim-breaker.ts). */
  pausedSims: number[];
  /** SIM slots with failures in a row counted: a send from one of them resets its count. */
  countingSims: number[];
  /** What it said it can do; null: it never says, and is handed anything. */
  capabilities: DeviceCapabilities | null;
  /** SIM slots the health judge found degraded with fault send: no task names them, and a device with no other takes only canaries. */
  degradedSims: number[];
  /** The SIM slots it reported in its last heartbeat. */
  reportedSims: number[];
  selectedSim: number;
  /** Its SIMs' carrier limits, and their usage (read only for a device with limits). */
  simLimits: SimLimits;
  simUsage: SimUsage[];
  /** Its account keeps each recipient on the SIM it last got an SMS from. */
  stickySender: boolean;
  /** The device group it is in: of the pool it takes SMS kept for no group, and those kept for this one. */
  group: string | null;
}

interface DeviceUsageRow {
  id: string;
  account_id: string;
  can_send_sms: boolean;
  send_window: number;
  limit_per_minute: number | null;
  limit_per_hour: number | null;
  limit_per_day: number | null;
  quiet_hours: QuietHours | null;
  paused_until: Date | null;
  send_jitter: SendJitter | null;
  next_send_at: Date | null;
  paused_sims: number[] | null;
  counting_sims: number[] | null;
  degraded_sims: number[] | null;
  sim_cards: SimCard[] | null;
  selected_sim: number;
  sim_limits: SimLimits | null;
  sticky_sender: boolean | null;
  capabilities: DeviceCapabilities | null;
  radio: Pick<DeviceRadio, 'can_send'> | null;
  group_name: string | null;
  in_flight: number;
  last_minute: number;
  last_hour: number;
  last_day: number;
  oldest_minute: Date | null;
  oldest_hour: Date | null;
  oldest_day: Date | null;
}

/**
 * Locks a live device's row until the transaction ends; false when there is no such device. The
 * lock is taken by a statement of its own: under READ COMMITTED a statement that waited for a
 * lock still counts from the snapshot it took before waiting, and would miss the tasks the claim
 * it waited for has just handed out. Read the usage after it, by a later statement.
 */
export function lockDevice(db: Executor, deviceId: string): Promise<boolean> {
  return lockLiveDevice(db, deviceId);
}

/**
 * A live device's pacing settings and usage. With `lock`, the device row stays locked until the
 * transaction ends: claims for one device are serialised, on every node, so two claims can never
 * both take the last slot of a window or a rate limit.
 *
 * For a claim (`exact` false) each rate window reads at most its limit's worth of the newest
 * dispatches, and none for a window without a limit: the cost of a claim does not grow with the
 * day's traffic. Then a count equal to the limit means "full", and the oldest of those rows is
 * the one whose ageing out opens the next slot. `exact` counts everything (GET /devices/{id}).
 */
export async function deviceUsage(db: Executor, deviceId: string, now: number, lock: boolean, exact = false): Promise<ClaimingDevice | undefined> {
  if (lock && !(await lockDevice(db, deviceId))) return undefined;
  const since = (ms: number) => new Date(now - ms - LIMIT_GRACE_MS);
  const window = (name: string, column: string) =>
    `lateral (select count(*)::int as n, min(w.at) as oldest
                from (select x.dispatched_at as at from device_dispatches x
                       where x.device_id = d.id and x.dispatched_at > ?::timestamptz
                       order by x.dispatched_at desc
                       ${exact ? '' : `limit coalesce(d.${column}, 0)`}) w) ${name}`;
  // One look at the device's sim_health rows: paused, counting and degraded SIMs. The account's
  // sticky sender is one probe of delivery_settings' key. Only a device with SIM limits reads its
  // SIMs' usage, by a statement of its own (simUsageOf): one without pays nothing for it, not
  // even the planning of it.
  const { rows } = await db.raw<{ rows: DeviceUsageRow[] }>(
    `select d.id, d.account_id, d.can_send_sms, d.send_window, d.limit_per_minute, d.limit_per_hour, d.limit_per_day,
            d.quiet_hours, d.paused_until, d.send_jitter, d.next_send_at, d.capabilities, d.radio, d.sim_cards, d.selected_sim, d.sim_limits,
            d.group_name, sh.paused as paused_sims, sh.counting as counting_sims, sh.degraded as degraded_sims,
            (select ds.sticky_sender from delivery_settings ds where ds.account_id = d.account_id) as sticky_sender,
            (select count(*) from sms s
              where s.device_id = d.id and s.dispatched_at is not null and s.status in ('pending','processing'))::int as in_flight,
            m.n as last_minute, h.n as last_hour, dd.n as last_day,
            m.oldest as oldest_minute, h.oldest as oldest_hour, dd.oldest as oldest_day
       from devices d,
            lateral (select array_agg(x.sim_slot) filter (where x.paused_until > ?::timestamptz) as paused,
                            array_agg(x.sim_slot) filter (where x.consecutive_failures > 0) as counting,
                            array_agg(x.sim_slot) filter (where x.degraded_since is not null and x.degraded_fault = 'send') as degraded
                       from sim_health x where x.device_id = d.id) sh,
            ${window('m', 'limit_per_minute')},
            ${window('h', 'limit_per_hour')},
            ${window('dd', 'limit_per_day')}
      where d.id = ? and d.deleted_at is null`,
    [new Date(now), since(60_000), since(3_600_000), since(DAY_MS), deviceId],
  );
  const row = rows[0];
  if (!row) return undefined;
  const simUsage = hasSimLimits(row.sim_limits) ? await simUsageOf(db, deviceId, now, exact) : [];
  return {
    id: row.id,
    account_id: row.account_id,
    can_send_sms: row.can_send_sms,
    settings: {
      send_window: row.send_window,
      limits: { per_minute: row.limit_per_minute, per_hour: row.limit_per_hour, per_day: row.limit_per_day },
      quiet_hours: row.quiet_hours,
      paused_until: row.paused_until,
      send_jitter: row.send_jitter,
      next_send_at: row.next_send_at,
      radio_cannot_send: radioCannotSend(row.radio),
    },
    pausedSims: (row.paused_sims ?? []).map(Number),
    countingSims: (row.counting_sims ?? []).map(Number),
    degradedSims: (row.degraded_sims ?? []).map(Number),
    reportedSims: (row.sim_cards ?? []).map((card) => card.index),
    selectedSim: row.selected_sim,
    simLimits: row.sim_limits ?? {},
    simUsage,
    stickySender: row.sticky_sender === true,
    capabilities: row.capabilities,
    group: row.group_name ?? null,
    usage: {
      inFlight: row.in_flight,
      lastMinute: row.last_minute,
      lastHour: row.last_hour,
      lastDay: row.last_day,
      oldestInMinute: row.oldest_minute,
      oldestInHour: row.oldest_hour,
      oldestInDay: row.oldest_day,
    },
  };
}

/**
 * Each limited SIM's usage: tasks handed to it in the last 24 hours (for a claim, at most its
 * per_day of the newest rows; `exact` counts them all) and the calendar month's counters.
 */
async function simUsageOf(db: Executor, deviceId: string, now: number, exact: boolean): Promise<SimUsage[]> {
  const { rows } = await db.raw<{ rows: { slot: number; day: number; oldest_day: Date | null; month_sent: number; month_recipients: number }[] }>(
    `select l.key::int as slot, sd.n as day, sd.oldest as oldest_day, coalesce(u.sent, 0) as month_sent, coalesce(u.recipients, 0) as month_recipients
       from devices d
       cross join lateral jsonb_each(d.sim_limits) l
       left join sim_month_usage u on u.device_id = d.id and u.sim_slot = l.key::int and u.month = ?::date
       cross join lateral (select count(*)::int as n, min(w.at) as oldest
                             from (select x.dispatched_at as at from device_dispatches x
                                    where x.device_id = d.id and x.sim_slot = l.key::int and x.dispatched_at > ?::timestamptz
                                    order by x.dispatched_at desc
                                    ${exact ? '' : `limit coalesce((l.value->>'per_day')::int, 0)`}) w) sd
      where d.id = ?`,
    [monthOf(now), new Date(now - DAY_MS - LIMIT_GRACE_MS), deviceId],
  );
  return rows.map((row) => ({
    slot: Number(row.slot),
    day: Number(row.day),
    oldestDay: row.oldest_day,
    monthSent: Number(row.month_sent),
    monthRecipients: Number(row.month_recipients),
  }));
}

/** Why an SMS ends before any phone is handed it, when its recipient is on the suppression list. */
export const OPTED_OUT_REASON = 'recipient_opted_out';
const OPTED_OUT_HISTORY = 'recipient_opted_out: the recipient opted out before a phone took the SMS';

/**
 * Whether the SMS `s` must not go to its recipient: the number is on its account's suppression
 * list (for a group MMS, any of its recipients). One probe of the list's (account_id, phone) index.
 * The list was checked when the SMS was created; it is checked again here because a recipient may
 * send STOP while the SMS waits (scheduled, queued, or going round again after a failed send).
 * Let through: an SMS created past the list (transactional), and an encrypted one, whose number is
 * ciphertext the gateway cannot read: its phone checks it (docs/encryption.md).
 */
const OPTED_OUT = (s: string) =>
  `(not ${s}.is_encrypted and not ${s}.transactional and exists (
      select 1 from suppressions x
       where x.account_id = ${s}.account_id
         and x.phone = any(case when ${s}.kind = 'mms' then (select m.recipients from mms_messages m where m.sms_id = ${s}.id) else array[${s}.phone] end)))`;

export interface Claimed {
  /** SMS handed to the device, to publish. */
  taken: SmsRecord[];
  /** SMS whose recipient opted out while they waited: ended as failed_send, handed to no one. */
  refused: SmsStatusChange[];
}

/**
 * Takes up to `room` SMS for the device: those its client named it for and those of its
 * account's pool, priority first, then oldest first, skipping rows another claimer holds.
 * Each taken SMS gets the device and its dispatch time, and one row in the dispatch log. An SMS
 * whose recipient is on the suppression list is not taken: it ends in the same statement as
 * failed_send, reason recipient_opted_out, and the next SMS is claimed in its place.
 */
export async function claimSms(db: Executor, device: ClaimantDevice, room: number, now: number, filters: ClaimFilters = {}): Promise<Claimed> {
  const claimed: Claimed = { taken: [], refused: [] };
  for (let want = room; want > 0; ) {
    const once = await claimOnce(db, device, want, now, filters);
    claimed.taken.push(...once.taken);
    claimed.refused.push(...once.refused);
    // Nobody opted out (the usual case: one statement), or the queue had no more than this.
    if (once.refused.length === 0 || once.taken.length + once.refused.length < want) break;
    want -= once.taken.length;
  }
  return claimed;
}

/** SQL added to a claim's conditions on sms rows, with its bindings. */
export interface SqlPart {
  sql: string;
  bindings: unknown[];
}

/**
 * What a claim leaves out besides what is not due: nothing in the usual case. A device whose every
 * SIM is degraded takes only the canaries named for it; a device with SIM limits, or of an account
 * with sticky sender, leaves out what its SIMs may not take or what waits for another device's SIM,
 * and writes its dispatch log rows once it chose their SIMs (recordSimDispatches).
 */
export interface ClaimFilters {
  canaryOnly?: boolean;
  named?: SqlPart[];
  pool?: SqlPart[];
  /** The dispatch log rows are written after, with their SIMs. */
  logLater?: boolean;
}

function joined(parts: SqlPart[] | undefined): SqlPart {
  return { sql: (parts ?? []).map((part) => ` and ${part.sql}`).join(''), bindings: (parts ?? []).flatMap((part) => part.bindings) };
}

/** SMS naming one of these SIMs (at a limit) wait; canaries keep theirs. */
export function namedSimsNotIn(slots: number[]): SqlPart {
  return { sql: `(sim_slot is null or not (sim_slot = any(?::int2[])) or kind = 'canary')`, bindings: [slots] };
}

/** Only SMS to recipients one of these SIMs of the device sent to this month (every SIM at its recipients limit). */
export function knownRecipientsOf(deviceId: string, month: string, slots: number[]): SqlPart {
  return {
    sql: `(kind = 'canary' or exists (select 1 from sim_month_recipients r where r.device_id = ? and r.month = ?::date and r.phone = sms.phone and r.sim_slot = any(?::int2[])))`,
    bindings: [deviceId, month, slots],
  };
}

/**
 * Sticky sender: a pool SMS whose recipient last got an SMS from a SIM of another device waits for
 * that device while the SIM can send: the device is live, may send, is not paused, its radio can
 * send, it is not in `away` (offline past the bound), and the SIM is still reported, not paused,
 * not degraded (send) and not at its day or month limit. Otherwise any device takes it.
 */
export function notStickyElsewhere(deviceId: string, away: string[], now: number): SqlPart {
  const at = new Date(now);
  const limit = (name: string) => `(kd.sim_limits->(k.sim_slot::text)->>'${name}')::int`;
  return {
    sql: `not exists (
      select 1 from sticky_senders k join devices kd on kd.id = k.device_id
       where k.account_id = sms.account_id and k.phone = sms.phone and k.device_id <> ?::uuid and not (k.device_id = any(?::uuid[]))
         and kd.deleted_at is null and kd.can_send_sms and (kd.paused_until is null or kd.paused_until <= ?::timestamptz)
         and coalesce((kd.radio->>'can_send')::boolean, true)
         and kd.sim_cards @> jsonb_build_array(jsonb_build_object('index', k.sim_slot))
         and not exists (select 1 from sim_health h where h.device_id = k.device_id and h.sim_slot = k.sim_slot
                          and (h.paused_until > ?::timestamptz or (h.degraded_since is not null and h.degraded_fault = 'send')))
         and (${limit('per_month')} is null or coalesce((select u.sent from sim_month_usage u
                                                          where u.device_id = k.device_id and u.sim_slot = k.sim_slot and u.month = ?::date), 0) < ${limit('per_month')})
         and (${limit('per_day')} is null or (select count(*) from (select 1 from device_dispatches x
                                                                      where x.device_id = k.device_id and x.sim_slot = k.sim_slot and x.dispatched_at > ?::timestamptz
                                                                      limit ${limit('per_day')}) w) < ${limit('per_day')}))`,
    bindings: [deviceId, away, at, at, monthOf(now), new Date(now - DAY_MS - LIMIT_GRACE_MS)],
  };
}

/** The device a claim is for: whose pool, and what of it the device can be handed. */
export type ClaimantDevice = Pick<ClaimingDevice, 'id' | 'account_id' | 'capabilities' | 'group'>;

/**
 * What of its account's pool a device that said what it can do is never handed: the MMS, data SMS
 * and encrypted SMS it cannot send or open (an encrypted SMS that names a passphrase's
 * fingerprint opens only on a device holding that passphrase). SQL over the pool's sms rows, with
 * its bindings; nothing for a device that never said.
 */
function outOfReach(capabilities: DeviceCapabilities | null): { sql: string; bindings: string[] } {
  if (!capabilities) return { sql: '', bindings: [] };
  const excluded: string[] = [];
  if (!capabilities.mms) excluded.push(`kind <> 'mms'`);
  if (!capabilities.data_sms) excluded.push(`kind <> 'data'`);
  const fingerprint = capabilities.passphrase_fingerprint;
  if (fingerprint === undefined) excluded.push('not is_encrypted');
  else excluded.push('(not is_encrypted or passphrase_fingerprint is null or passphrase_fingerprint = ?)');
  return { sql: excluded.map((condition) => ` and ${condition}`).join(''), bindings: fingerprint === undefined ? [] : [fingerprint] };
}

/**
 * Of the pool, what a route keeps for a device group goes to that group's devices only: a device
 * in no group skips those SMS, one in a group skips those of other groups. A condition on the
 * rows the pool's index already yields (no join): SMS kept for no group pass it at once.
 */
function groupReach(group: string | null, alias = ''): { sql: string; bindings: string[] } {
  if (group === null) return { sql: ` and ${alias}device_group is null`, bindings: [] };
  return { sql: ` and (${alias}device_group is null or ${alias}device_group = ?)`, bindings: [group] };
}

/**
 * Devices whose claims see the same part of the pool share this: once one found it empty, the
 * others need not look (dispatcher.ts). `everything` for a device that sees all of it but what
 * routes keep for device groups (SMS none of the account's devices may take unless in the group).
 */
export function poolReach(capabilities: DeviceCapabilities | null, group: string | null = null): string {
  const kinds = capabilities ? `mms=${capabilities.mms} data=${capabilities.data_sms} passphrase=${capabilities.passphrase_fingerprint ?? 'none'}` : 'everything';
  return group === null ? kinds : `${kinds} group=${group}`;
}

/** The reach of a device whose claims see a pool of their own (sticky sender, SIM limits); its group still tells. */
export function ownReach(deviceId: string, group: string | null): string {
  return group === null ? `own:${deviceId}` : `own:${deviceId} group=${group}`;
}

/** Whether a reach is a device group's: it may see SMS a device in no group never does. Unknown (undefined): no. */
export function inDeviceGroup(reach: string | undefined): boolean {
  return reach !== undefined && reach.includes(' group=');
}

async function claimOnce(db: Executor, device: ClaimantDevice, room: number, now: number, filters: ClaimFilters): Promise<Claimed> {
  const at = new Date(now);
  const reach = outOfReach(device.capabilities);
  const group = groupReach(device.group);
  // Again on the locked row: a route may have kept it for a group since the candidates were read.
  const lockedGroup = groupReach(device.group, 's.');
  const named = joined(filters.canaryOnly ? [{ sql: `kind = 'canary'`, bindings: [] }, ...(filters.named ?? [])] : filters.named);
  const pool = joined(filters.canaryOnly ? [{ sql: 'false', bindings: [] }] : filters.pool);
  const logged = filters.logLater
    ? ''
    : `,
     logged as (
       insert into device_dispatches (device_id, dispatched_at) select ?::uuid, ?::timestamptz from claimed where not refused)`;
  // Each queue is read in index order; the slack lets a claim skip rows locked by another.
  const slack = room * 2 + 10;
  const due = dueNow();
  // One update takes the SMS and ends those whose recipient opted out: every statement the claim
  // adds is planned on every claim, and refusals are rare. Their history is written after, by one
  // more statement, only when there are some.
  const { rows } = await db.raw<{ rows: (SmsRecord & { refused: boolean })[] }>(
    `with candidates as (
       (select id, priority, created_at from sms where device_id = ? and ${due}${named.sql}
         order by priority desc, created_at, id limit ?)
       union all
       (select id, priority, created_at from sms where account_id = ? and device_id is null and ${due}
           and (avoid_device_id is null or avoid_device_id <> ?)${group.sql}${reach.sql}${pool.sql}
         order by priority desc, created_at, id limit ?)),
     picked as (
       select s.id, ${OPTED_OUT('s')} as opted_out from sms s join candidates c on c.id = s.id
        where s.status = 'pending' and s.dispatched_at is null and (s.device_id = ? or (s.device_id is null${lockedGroup.sql}))
        order by c.priority desc, c.created_at, c.id
        limit ?
          for update of s skip locked),
     claimed as (
       update sms set device_id = case when picked.opted_out then sms.device_id else ?::uuid end,
                      dispatched_at = case when picked.opted_out then null else ?::timestamptz end,
                      status = case when picked.opted_out then 'failed_send' else sms.status end,
                      reason = case when picked.opted_out then ? else sms.reason end,
                      updated_at = case when picked.opted_out then ?::timestamptz else sms.updated_at end,
                      dispatch_sim_slot = null
         from picked where sms.id = picked.id
       returning sms.*, picked.opted_out as refused)${logged}
     select * from claimed order by priority desc, created_at, id`,
    [
      device.id, at, at, at, ...named.bindings, slack,
      device.account_id, at, at, at, device.id, ...group.bindings, ...reach.bindings, ...pool.bindings, slack,
      device.id, ...lockedGroup.bindings, room, device.id, at, OPTED_OUT_REASON, at,
      ...(filters.logLater ? [] : [device.id, at]),
    ] as never,
  );
  const claimed: Claimed = { taken: [], refused: [] };
  const refused: SmsRecord[] = [];
  for (const { refused: optedOut, ...sms } of rows) (optedOut ? refused : claimed.taken).push(sms);
  if (refused.length > 0) {
    const deviceObjectId = await recordRefusals(db, device.id, refused.map((sms) => sms.id), at);
    claimed.refused = refused.map((sms) => refusal(sms, sms.device_id ? deviceObjectId : null, at));
  }
  return claimed;
}

/** The history entries of SMS a claim ended because their recipient opted out; answers the claiming device's object id. */
async function recordRefusals(db: Executor, deviceId: string, smsIds: string[], at: Date): Promise<string | null> {
  const { rows } = await db.raw<{ rows: { object_id: string }[] }>(
    `with logged as (
       insert into sms_status_history (sms_id, status, source, reason, created_at)
       select id, 'failed_send', 'system', ?, ?::timestamptz from unnest(?::uuid[]) as id)
     select object_id from devices where id = ?`,
    [OPTED_OUT_HISTORY, at, smsIds, deviceId],
  );
  return rows[0]?.object_id ?? null;
}

/** The status change of an SMS ended because its recipient opted out (a claim names only its own device). */
function refusal(sms: SmsRecord, deviceObjectId: string | null, at: Date): SmsStatusChange {
  const snapshot: SmsSnapshot = {
    id: sms.id,
    object_id: sms.object_id,
    account_id: sms.account_id,
    phone: sms.phone,
    message: sms.message,
    callback_id: sms.callback_id,
    device_id: sms.device_id,
    device_object_id: deviceObjectId,
    is_encrypted: sms.is_encrypted,
    kind: sms.kind,
    way_in: sms.way_in ?? 'api',
    ...(sms.attempt !== undefined ? { attempt: sms.attempt } : {}),
  };
  return { sms: snapshot, from: 'pending', path: ['failed_send'], at, reason: OPTED_OUT_REASON, source: 'system', transient: false };
}

/**
 * Of these SMS handed to a device and not acknowledged, ends those whose recipient opted out
 * since (failed_send, recipient_opted_out), before they are published to the phone again; an
 * SMS a phone acknowledged is the phone's and is left alone. One statement for the whole page.
 */
export function refuseOptedOut(db: Executor, smsIds: string[], now: number): Promise<SmsStatusChange[]> {
  if (smsIds.length === 0) return Promise.resolve([]);
  return endByGateway(db, {
    select: `select s.id, s.status from sms s where s.id = any(?::uuid[]) and s.status = 'pending' and ${OPTED_OUT('s')} for update of s skip locked`,
    bindings: [smsIds],
    reason: OPTED_OUT_REASON,
    history: OPTED_OUT_HISTORY,
    source: 'system',
    now,
  });
}

/**
 * A device with send_jitter was just handed a task: it is handed the next one no earlier than
 * `at` (every node reads it from the row, under the claim's device lock).
 */
export function spaceNextSend(db: Executor, deviceId: string, at: number | null): Promise<void> {
  return setNextSendAt(db, deviceId, at);
}

/** Logs one task handed to the device outside the queue (a no_store SMS). */
export async function logDispatch(db: Executor, deviceId: string, now: number): Promise<void> {
  await db('device_dispatches').insert({ device_id: deviceId, dispatched_at: new Date(now) });
}

/**
 * Queued SMS a claim may take now, with three bindings (the time each): not yet handed out, past
 * its send_at, before its expires_at, and past its retry_at (a retry waits for it, and for another
 * phone when the one that failed it has no SIM left to try). One condition for the claim, the
 * sweep's due work and the hint of devices that become ready: a "no" from either of the latter
 * must mean the claim would find nothing. `alias` names the sms table's alias ("s.").
 */
function dueNow(alias = ''): string {
  const c = (column: string) => `${alias}${column}`;
  return `${c('status')} = 'pending' and ${c('dispatched_at')} is null and (${c('send_at')} is null or ${c('send_at')} <= ?)
          and (${c('expires_at')} is null or ${c('expires_at')} > ?) and (${c('retry_at')} is null or ${c('retry_at')} <= ?)`;
}

/** A device's tasks in flight, handed out and not finished, oldest first: to publish again. */
export async function openTasks(db: Executor, deviceId: string, limit: number, after?: { dispatchedAt: Date; id: string }): Promise<SmsRecord[]> {
  const query = db<SmsRecord>('sms')
    .where({ device_id: deviceId })
    .whereNotNull('dispatched_at')
    .whereIn('status', ['pending', 'processing'])
    .orderBy([{ column: 'dispatched_at' }, { column: 'id' }])
    .limit(limit);
  if (after) query.whereRaw('(dispatched_at, id) > (?, ?)', [after.dispatchedAt, after.id]);
  return query;
}

/**
 * What devices that just became ready hold and may find, read for a group of them by one lock-free
 * statement (dispatcher.deviceReady): a gateway restart brings the whole fleet back within
 * seconds, and most phones then hold nothing and find nothing. Without this read each one would
 * take a claim transaction (the device row locked FOR UPDATE, its usage read, the claim, a commit
 * flushed to disk) only to learn that.
 */
export interface ReadyWork {
  /** Its tasks in flight (handed out, not finished), oldest first, at most a first page of them: to publish again. */
  openTasks: SmsRecord[];
  /**
   * A claim may take something: SMS named for it, or pool SMS of its account, due now and not
   * kept for another device group or away from it. A hint, looser than the claim where matching
   * it would cost (what it can send, its pacing): when it says no, the claim would have found
   * nothing. Also yes when its SIMs have a state the claim reads for the dispatcher (paused,
   * degraded, failures in a row counted).
   */
  claimable: boolean;
}

type ReadyRow = SmsRecord & { ready_device: string; ready_claimable: boolean };

/**
 * For each device: its first `firstPage` tasks in flight and whether a claim may take anything.
 * Read after the devices were registered as ready: an SMS queued after this statement's
 * snapshot is offered to them by the queued path (dispatcher.queued, the pool offer, another
 * node's wake-up), so a "no" here never leaves one of them without work it should be handed.
 */
export async function readyWork(db: Executor, deviceIds: string[], now: number, firstPage: number): Promise<Map<string, ReadyWork>> {
  const at = new Date(now);
  // The claim's own condition: a "no" here must mean the claim would find nothing.
  const due = dueNow('s.');
  // Materialised: each device's hint is computed once, not once per task the join returns.
  const { rows } = await db.raw<{ rows: ReadyRow[] }>(
    `with ready as materialized (
       select g.id as ready_device,
              (exists (select 1 from sms s where s.device_id = g.id and ${due})
               or exists (select 1 from devices d join sms s on s.account_id = d.account_id
                           where d.id = g.id and d.deleted_at is null and s.device_id is null and ${due}
                             and (s.avoid_device_id is null or s.avoid_device_id <> d.id)
                             and (s.device_group is null or s.device_group = d.group_name))
               or exists (select 1 from sim_health h
                           where h.device_id = g.id
                             and (h.consecutive_failures > 0 or h.paused_until > ?::timestamptz
                                  or (h.degraded_since is not null and h.degraded_fault = 'send')))) as ready_claimable
         from unnest(?::uuid[]) as g(id))
     select r.ready_device, r.ready_claimable, t.*
       from ready r
       left join lateral (select * from sms
                           where sms.device_id = r.ready_device and sms.dispatched_at is not null and sms.status in ('pending', 'processing')
                           order by sms.dispatched_at, sms.id
                           limit ?) t on true
      order by r.ready_device, t.dispatched_at, t.id`,
    [at, at, at, at, at, at, at, deviceIds, firstPage] as never,
  );
  const work = new Map<string, ReadyWork>();
  for (const { ready_device: deviceId, ready_claimable: claimable, ...sms } of rows) {
    let entry = work.get(deviceId);
    if (!entry) work.set(deviceId, (entry = { openTasks: [], claimable }));
    if (sms.id) entry.openTasks.push(sms as SmsRecord);
  }
  return work;
}

/** Tasks handed to these devices that no phone acknowledged since `before`. */
export async function unacknowledgedSince(db: Executor, deviceIds: string[], before: Date, limit: number): Promise<SmsRecord[]> {
  if (deviceIds.length === 0) return [];
  return db<SmsRecord>('sms')
    .whereIn('device_id', deviceIds)
    .where({ status: 'pending' })
    .whereNotNull('dispatched_at')
    .where('dispatched_at', '<', before)
    .orderBy('dispatched_at')
    .limit(limit);
}

/** Devices holding tasks no phone acknowledged yet (handed out before `before`, if given): failover and re-publishing candidates. */
export async function devicesWithUnacknowledged(db: Executor, before?: Date): Promise<string[]> {
  const { rows } = await db.raw<{ rows: { device_id: string }[] }>(
    `select distinct device_id from sms where dispatched_at is not null and status = 'pending'${before ? ' and dispatched_at < ?' : ''}`,
    before ? [before] : [],
  );
  return rows.map((row) => row.device_id);
}

/** Where queued work is due now: accounts with a pool, devices with SMS named for them. */
export async function dueWork(db: Executor, now: number): Promise<{ accounts: Set<string>; devices: Set<string> }> {
  const at = new Date(now);
  const due = dueNow();
  const { rows } = await db.raw<{ rows: { account_id: string | null; device_id: string | null }[] }>(
    `select distinct account_id, null::uuid as device_id from sms where device_id is null and ${due}
     union
     select distinct null::uuid, device_id from sms where device_id is not null and ${due}`,
    [at, at, at, at, at, at],
  );
  const accounts = new Set<string>();
  const devices = new Set<string>();
  for (const row of rows) {
    if (row.account_id) accounts.add(row.account_id);
    if (row.device_id) devices.add(row.device_id);
  }
  return { accounts, devices };
}

type ChangedRow = SmsSnapshot & { previous: SmsStatus; status: SmsStatus; at: Date; reason: string | null };

function toChanges(rows: ChangedRow[], source: SmsStatusChange['source']): SmsStatusChange[] {
  return rows.map(({ previous, status, at, reason, ...sms }) => ({
    sms,
    from: previous,
    path: [status],
    at,
    reason,
    source,
    transient: false,
  }));
}

/**
 * What becomes of the SMS whose client named the device when its unacknowledged tasks are taken
 * back: `keep` leaves them handed to it (it is offline or paused, and may come back and send
 * them); `requeue` puts the ones handed out back in its queue, handed to no one, to be claimed
 * again once it may send (it was switched off); `fail` ends them all as failed_send with the
 * reason (it was deleted, and never will).
 */
export type NamedTasks = 'keep' | 'requeue' | 'fail';

export interface Released {
  /** Pool SMS given back to the pool (each had been handed to the device). */
  returned: string[];
  /** SMS named for the device that were handed to it and now wait in its queue again. */
  requeued: string[];
  failed: SmsStatusChange[];
}

/**
 * Takes back a device's tasks that no phone acknowledged (status pending): those for any device
 * go back to the pool; those whose client named the device as `named` says. Tasks a phone
 * acknowledged (processing) are never touched here: the SMS may already be on the air.
 */
export async function releaseUnacknowledged(
  db: Executor,
  deviceId: string,
  options: { named: NamedTasks; reason: string; now: number },
): Promise<Released> {
  const { rows: returned } = await db.raw<{ rows: { id: string }[] }>(
    `update sms set device_id = null, dispatched_at = null
      where device_id = ? and status = 'pending' and not device_named
      returning id`,
    [deviceId],
  );
  const released: Released = { returned: returned.map((row) => row.id), requeued: [], failed: [] };
  if (options.named === 'requeue') {
    const { rows } = await db.raw<{ rows: { id: string }[] }>(
      `update sms set dispatched_at = null
        where device_id = ? and status = 'pending' and device_named and dispatched_at is not null
        returning id`,
      [deviceId],
    );
    released.requeued = rows.map((row) => row.id);
  } else if (options.named === 'fail') {
    released.failed = await endByGateway(db, {
      select: `select id, status from sms where device_id = ? and status = 'pending' and device_named for update`,
      bindings: [deviceId],
      reason: options.reason,
      history: options.reason,
      source: 'system',
      now: options.now,
    });
  }
  return released;
}

/**
 * Ends the SMS a deleted device's phone had taken, which it can no longer report on (its
 * credentials are dead): acknowledged and not reported sent, failed_send; sent, failed_delivery,
 * since its delivery can never be confirmed. Both with reason device_deleted. Without this they
 * would stay processing or sent for ever, and a client waiting for a final status would wait
 * for ever too.
 */
export function endTakenByDeletedDevice(db: Executor, deviceId: string, now: number): Promise<SmsStatusChange[]> {
  return endByGateway(db, {
    select: `select id, status from sms where device_id = ? and status in ('processing', 'sent') for update`,
    bindings: [deviceId],
    reason: 'device_deleted',
    history: 'device_deleted',
    source: 'system',
    now,
  });
}

/**
 * Ends SMS that were not taken by a phone before they expired (failed_send, reason expired).
 * Rows a claimer holds are skipped this time; the next sweep gets them.
 */
export function expireDue(db: Executor, now: number, limit: number): Promise<SmsStatusChange[]> {
  return endByGateway(db, {
    select: `select id, status from sms where status = 'pending' and expires_at is not null and expires_at <= ? limit ? for update skip locked`,
    bindings: [new Date(now), limit],
    reason: 'expired',
    history: 'expired: not taken by a phone before valid_until',
    source: 'system',
    now,
  });
}

/** Cancels one SMS if no phone took it yet; undefined when it is no longer pending. */
export async function cancelPending(db: Executor, accountId: string, smsId: string, now: number): Promise<SmsStatusChange | undefined> {
  const [change] = await endByGateway(db, {
    select: `select id, status from sms where id = ? and account_id = ? and status = 'pending' for update`,
    bindings: [smsId, accountId],
    reason: 'cancelled',
    history: 'cancelled by the client',
    source: 'api',
    now,
  });
  return change;
}

/** What a replacement changes: the text, and when given, the schedule and the validity. */
export interface SmsReplacement {
  message: string;
  /** null: at once; undefined: as it was. */
  sendAt?: Date | null | undefined;
  /** undefined: as it was. */
  expiresAt?: Date | undefined;
}

/**
 * The account's SMS, locked until the transaction ends, as a replacement needs it; undefined
 * when the account has no such SMS.
 */
export async function lockForReplacement(db: Executor, accountId: string, smsId: string): Promise<SmsRecord | undefined> {
  const { rows } = await db.raw<{ rows: SmsRecord[] }>(`select * from sms where id = ? and account_id = ? for update`, [smsId, accountId]);
  return rows[0];
}

/**
 * Writes a replacement of a pending SMS locked by lockForReplacement. A task handed out and not
 * acknowledged is taken back with it: one for any device goes back to the pool, one whose client
 * named the device waits in that device's queue, handed to no one, until it is claimed again.
 * Its reason says "replaced" until a phone acknowledges the new task: an acknowledgement that
 * arrives before the new hand-out is of the old text, and is revoked.
 */
export async function writeReplacement(db: Executor, sms: SmsRecord, replacement: SmsReplacement, now: number): Promise<SmsRecord> {
  const { rows } = await db.raw<{ rows: SmsRecord[] }>(
    `update sms set message = ?, send_at = ?, expires_at = ?, updated_at = ?, dispatched_at = null, reason = 'replaced',
                    device_id = case when device_named then device_id else null end
      where id = ? and status = 'pending'
      returning *`,
    [
      replacement.message,
      replacement.sendAt === undefined ? sms.send_at : replacement.sendAt,
      replacement.expiresAt === undefined ? sms.expires_at : replacement.expiresAt,
      new Date(now),
      sms.id,
    ] as never,
  );
  return rows[0]!;
}

/**
 * Ends the SMS that `select` (id, status) picks and locks, with `reason` and their history
 * entries, in one statement: as failed_send when no phone had sent it (pending, processing), as
 * failed_delivery when one had (sent). Returns the changes for the status hooks.
 */
async function endByGateway(
  db: Executor,
  what: { select: string; bindings: unknown[]; reason: string; history: string; source: SmsStatusChange['source']; now: number },
): Promise<SmsStatusChange[]> {
  const at = new Date(what.now);
  const { rows } = await db.raw<{ rows: ChangedRow[] }>(
    `with target as (${what.select}),
     ended as (
       update sms set status = case when target.status = 'sent' then 'failed_delivery' else 'failed_send' end,
                      reason = ?, updated_at = ?
         from target where sms.id = target.id
       returning sms.id, sms.object_id, sms.account_id, sms.phone, sms.message, sms.callback_id, sms.device_id, sms.attempt,
                 sms.status, target.status as previous, sms.updated_at as at, sms.reason, sms.is_encrypted, sms.kind, sms.way_in),
     logged as (
       insert into sms_status_history (sms_id, status, source, reason, created_at)
       select id, status, ?, ?, at from ended)
     select ended.*, d.object_id as device_object_id from ended left join devices d on d.id = ended.device_id`,
    [...what.bindings, what.reason, at, what.source, what.history] as never,
  );
  return toChanges(rows, what.source);
}

/** Forgets dispatch log rows older than any rate limit looks back, and the recipients of months past. */
export async function pruneDispatchLog(db: Executor, now: number): Promise<void> {
  await db.raw(
    `delete from device_dispatches where id in (select id from device_dispatches where dispatched_at < ? limit 10000)`,
    [new Date(now - DAY_MS - 60_000)],
  );
  await db.raw(
    `delete from sim_month_recipients where ctid in (select ctid from sim_month_recipients where month < ?::date limit 10000)`,
    [monthOf(now)],
  );
}

/**
 * For the SMS a claim took (their recipients): the SIMs of the device that sent to each this
 * month, and with sticky sender, the SIM of the device each last got an SMS from. One statement.
 */
export async function recipientsSims(
  db: Executor,
  device: { id: string; account_id: string },
  phones: string[],
  now: number,
  sticky: boolean,
): Promise<{ known: Map<string, Set<number>>; sticky: Map<string, number> }> {
  const { rows } = await db.raw<{ rows: { what: string; phone: string; sim_slot: number }[] }>(
    `select 'known' as what, phone, sim_slot from sim_month_recipients where device_id = ? and month = ?::date and phone = any(?::text[])
     union all
     select 'sticky', phone, sim_slot from sticky_senders where ? and account_id = ? and device_id = ? and phone = any(?::text[])`,
    [device.id, monthOf(now), phones, sticky, device.account_id, device.id, phones],
  );
  const found = { known: new Map<string, Set<number>>(), sticky: new Map<string, number>() };
  for (const row of rows) {
    if (row.what === 'sticky') found.sticky.set(row.phone, Number(row.sim_slot));
    else found.known.set(row.phone, (found.known.get(row.phone) ?? new Set()).add(Number(row.sim_slot)));
  }
  return found;
}

/** One SMS handed to a SIM by a claim that chose its SIM. */
export interface SimDispatch {
  smsId: string;
  slot: number;
  phone: string;
  /** Its recipient is kept on this SIM (sticky sender; not for a canary or an encrypted SMS). */
  sticky: boolean;
}

/**
 * What a claim that chose the SIMs writes, in one statement: each SMS's SIM (the task names it,
 * whenever it is published), the dispatch log rows with their SIM, the month's counters (a
 * recipient counted once per SIM and month), and the recipients' sticky SIMs.
 */
export async function recordSimDispatches(db: Executor, device: { id: string; account_id: string }, dispatches: SimDispatch[], now: number): Promise<void> {
  if (dispatches.length === 0) return;
  const at = new Date(now);
  const month = monthOf(now);
  const sticky = dispatches.filter((dispatch) => dispatch.sticky);
  await db.raw(
    `with v as (select * from unnest(?::uuid[], ?::int2[], ?::text[]) as v(id, slot, phone)),
     chosen as (update sms set dispatch_sim_slot = v.slot from v where sms.id = v.id),
     logged as (insert into device_dispatches (device_id, dispatched_at, sim_slot) select ?::uuid, ?::timestamptz, slot from v),
     reached as (
       insert into sim_month_recipients (device_id, sim_slot, month, phone)
       select distinct ?::uuid, slot, ?::date, phone from v
       on conflict do nothing
       returning sim_slot),
     counted as (
       insert into sim_month_usage (device_id, sim_slot, month, sent, recipients)
       select ?::uuid, v.slot, ?::date, count(*), (select count(*) from reached r where r.sim_slot = v.slot) from v group by v.slot
       on conflict (device_id, sim_slot, month) do update
         set sent = sim_month_usage.sent + excluded.sent, recipients = sim_month_usage.recipients + excluded.recipients)
     insert into sticky_senders (account_id, phone, device_id, sim_slot, updated_at)
     select distinct on (phone) ?::uuid, phone, ?::uuid, slot, ?::timestamptz from unnest(?::text[], ?::int2[]) as s(phone, slot)
     on conflict (account_id, phone) do update set device_id = excluded.device_id, sim_slot = excluded.sim_slot, updated_at = excluded.updated_at`,
    [
      dispatches.map((d) => d.smsId),
      dispatches.map((d) => d.slot),
      dispatches.map((d) => d.phone),
      device.id, at,
      device.id, month,
      device.id, month,
      device.account_id, device.id, at, sticky.map((d) => d.phone), sticky.map((d) => d.slot),
    ] as never,
  );
}

/** SMS a claim took that no SIM of the device may take now: back where they waited, handed to no one. */
export async function putBack(db: Executor, smsIds: string[]): Promise<void> {
  if (smsIds.length === 0) return;
  await db.raw(
    `update sms set device_id = case when device_named then device_id else null end, dispatched_at = null where id = any(?::uuid[])`,
    [smsIds],
  );
}

/** The account's live devices (sticky sender: which of them are away is the caller's to say). */
export async function accountDeviceIds(db: Executor, accountId: string): Promise<string[]> {
  const { rows } = await db.raw<{ rows: { id: string }[] }>(`select id from devices where account_id = ? and deleted_at is null`, [accountId]);
  return rows.map((row) => row.id);
}

/** Whether the account keeps each recipient on the SIM it last got an SMS from. */
export async function stickySender(db: Executor, accountId: string): Promise<boolean> {
  const { rows } = await db.raw<{ rows: { sticky_sender: boolean }[] }>(`select sticky_sender from delivery_settings where account_id = ?`, [accountId]);
  return rows[0]?.sticky_sender ?? false;
}

/** Sets the account's sticky sender. */
export async function setStickySender(db: Executor, accountId: string, on: boolean, now: number): Promise<void> {
  await db.raw(
    `insert into delivery_settings (account_id, sticky_sender, updated_at) values (?, ?, ?)
     on conflict (account_id) do update set sticky_sender = excluded.sticky_sender, updated_at = excluded.updated_at`,
    [accountId, on, new Date(now)],
  );
}

/** Whether every SIM the device reported is degraded with fault send (none reported: false). */
export async function everySimDegraded(db: Executor, deviceId: string): Promise<boolean> {
  const { rows } = await db.raw<{ rows: { all_degraded: boolean }[] }>(
    `select coalesce(bool_and(h.degraded_since is not null and h.degraded_fault = 'send'), false) as all_degraded
       from devices d
       cross join lateral jsonb_array_elements(d.sim_cards) card
       left join sim_health h on h.device_id = d.id and h.sim_slot = (card->>'index')::int
      where d.id = ? and d.deleted_at is null`,
    [deviceId],
  );
  return Boolean(rows[0]?.all_degraded);
}

/** What GET /devices/{id} shows of the device's queue. */
export async function waitingForDevice(db: Executor, deviceId: string): Promise<number> {
  const row = await db('sms')
    .where({ device_id: deviceId, status: 'pending' })
    .whereNull('dispatched_at')
    .count<{ n: number }[]>({ n: '*' })
    .first();
  return Number(row?.n ?? 0);
}

export interface LockedSms extends SmsSnapshot {
  status: SmsStatus;
  expires_at: Date | null;
  reason: string | null;
  /** null while the SMS waits unhanded (in the pool, or in its named device's queue). */
  dispatched_at: Date | null;
  /** Whether the SMS's device may send now (can_send_sms); null without a device. */
  device_can_send: boolean | null;
  /** What deciding a retry needs: the attempt it is on, how many its device allows, the SIMs. */
  attempt: number;
  max_attempts: number;
  device_named: boolean;
  sim_slot: number | null;
  retry_sim_slot: number | null;
  device_sim_cards: SimCard[] | null;
}

/** Locks the SMS rows a batch of reports is about to change; returns what their events need. */
export async function lockSms(db: Executor, ids: string[]): Promise<LockedSms[]> {
  const { rows } = await db.raw<{ rows: LockedSms[] }>(
    `select s.id, s.object_id, s.account_id, s.device_id, s.status, s.phone, s.message, s.callback_id, s.expires_at, s.reason,
            s.dispatched_at, s.is_encrypted, s.kind, s.way_in, d.object_id as device_object_id, d.can_send_sms as device_can_send,
            s.attempt, s.device_named, s.sim_slot, s.retry_sim_slot, d.sim_cards as device_sim_cards,
            coalesce(d.max_send_attempts, (select a.max_send_attempts from accounts a where a.id = s.account_id), 1) as max_attempts
       from sms s left join devices d on d.id = s.device_id
      where s.id = any(?::uuid[])
      order by s.id
        for update of s`,
    [ids],
  );
  return rows;
}

const ENDS_WITH_REASON: ReadonlySet<SmsStatus> = new Set(['failed_send', 'failed_delivery', 'undelivered']);

/** Writes a batch of status changes: the new statuses and their history, in one statement. */
/**
 * Also written by the same statement, to spare the batch a round trip each:
 * - `sentFrom`: the SIM slot each SMS was sent from, where its report said (sms.sent_sim_slot):
 *   every SMS in it has a change here, and its row is rewritten once instead of twice;
 * - `attempts`: the attempts the reports open, update or end (attempts.ts writeAttempts).
 */
export async function writeStatusChanges(
  db: Executor,
  changes: SmsStatusChange[],
  sentFrom: ReadonlyMap<string, number> = new Map(),
  attempts: AttemptWrite[] = [],
): Promise<void> {
  if (changes.length === 0) return writeAttempts(db, attempts);
  const upsert = attempts.length > 0 ? attemptsUpsert(attempts) : undefined;
  const last = new Map<string, SmsStatusChange>();
  for (const change of changes) last.set(change.sms.id, change);
  const finals = [...last.values()];
  const history = changes.flatMap((change) =>
    change.path.map((status, i) => ({
      smsId: change.sms.id,
      status,
      source: change.source,
      reason: i < change.path.length - 1 ? 'implied by a later report' : change.reason,
      at: change.at,
    })),
  );
  await db.raw(
    `with updated as (
       update sms set status = v.status, updated_at = v.at,
                      reason = case when v.status = any(?::text[]) then v.reason else sms.reason end,
                      sent_sim_slot = coalesce(v.slot, sms.sent_sim_slot)
         from (select unnest(?::uuid[]) as id, unnest(?::text[]) as status, unnest(?::timestamptz[]) as at,
                      unnest(?::text[]) as reason, unnest(?::int2[]) as slot) v
        where sms.id = v.id
        returning sms.id)${upsert ? `,
     attempts as (${upsert.sql})` : ''}
     insert into sms_status_history (sms_id, status, source, reason, created_at)
     select * from unnest(?::uuid[], ?::text[], ?::text[], ?::text[], ?::timestamptz[])`,
    [
      [...ENDS_WITH_REASON],
      finals.map((c) => c.sms.id),
      finals.map((c) => c.path[c.path.length - 1]!),
      finals.map((c) => c.at),
      finals.map((c) => c.reason),
      finals.map((c) => sentFrom.get(c.sms.id) ?? null),
      ...(upsert?.bindings ?? []),
      ...columnsOf(history, ['smsId', 'status', 'source', 'reason', 'at']),
    ] as never,
  );
}
