// The router's statements over the SMS it routes: which SMS to look at, keeping one for the phones
// under a rule, handing one to an upstream (taking it back from a phone that had not acknowledged
// it), and what follows a provider's answer. Each is one statement on rows the router locks, so
// that a phone's report and the router never both move one SMS.
import type { Executor } from '../../../storage/database.ts';
import type { SmsSnapshot } from '../../delivery/status-change.ts';
import type { SmsCategory } from '../../messages/category.ts';
import { deviceInGroup } from '../../devices/shared-queries.ts';

/** What the router reads of an SMS it decides on, and what a status change of it needs. */
export interface RoutedRow extends Omit<SmsSnapshot, 'device_object_id'> {
  status: string;
  priority: number;
  category: SmsCategory | null;
  created_at: Date;
  /** Not to be sent before (null: at once). */
  send_at: Date | null;
  dispatched_at: Date | null;
  upstream_id: string | null;
  route_rule: number | null;
  route_since: Date | null;
  upstream_tries: number;
  attempt: number;
  expires_at: Date | null;
  /** Its recipient is on the account's suppression list and it was not sent past the list. */
  opted_out: boolean;
}

/** The SMS's recipient opted out since it was made (STOP while it waited), as the phones' claim checks it. */
const OPTED_OUT = `(not transactional and exists (select 1 from suppressions x where x.account_id = sms.account_id and x.phone = sms.phone))`;

const COLUMNS = `id, object_id, account_id, phone, message, callback_id, device_id, is_encrypted, kind, way_in, status, priority, category, created_at, send_at,
            dispatched_at, upstream_id, route_rule, route_since, upstream_tries, attempt, expires_at, ${OPTED_OUT} as opted_out`;

/**
 * What routes may carry: text SMS, plain (a provider cannot carry ciphertext it cannot read, nor
 * an MMS or data SMS), for any phone (one whose client named a phone goes to that phone only).
 */
const ROUTABLE = `kind = 'text' and not is_encrypted and not device_named`;

/** An SMS to look at, and its account. */
export interface ToLookAt {
  id: string;
  account_id: string;
}

/**
 * SMS of routed accounts the router has not looked at yet (route_rule null), oldest first; one
 * scheduled for later only once its time came (a route must not send it early).
 */
export async function unrouted(db: Executor, accountIds: string[], now: Date, limit: number): Promise<ToLookAt[]> {
  if (accountIds.length === 0) return [];
  const { rows } = await db.raw<{ rows: ToLookAt[] }>(
    `select id, account_id from sms where account_id = any(?::uuid[]) and status = 'pending' and route_rule is null and ${ROUTABLE}
        and (send_at is null or send_at <= ?)
      order by created_at limit ?`,
    [accountIds, now, limit],
  );
  return rows;
}

/** SMS whose rule's wait or upstream's retry is due. */
export async function due(db: Executor, now: Date, limit: number): Promise<ToLookAt[]> {
  const { rows } = await db.raw<{ rows: ToLookAt[] }>(`select id, account_id from sms where route_check_at <= ? order by route_check_at limit ?`, [now, limit]);
  return rows;
}

/** Locks one SMS to decide on it; undefined when another holds it (it is decided there) or it is gone. */
export async function lockRouted(db: Executor, id: string): Promise<RoutedRow | undefined> {
  const { rows } = await db.raw<{ rows: RoutedRow[] }>(
    `select ${COLUMNS} from sms where id = ? and ${ROUTABLE} for update skip locked`,
    [id],
  );
  return rows[0];
}

/**
 * The account's SMS waiting for its phones under a rule are to be looked at now (its phones went
 * offline): those due later or never come due at once. With `groupsOnline`, only those kept for a
 * device group with no phone online (a group's last phone went offline, others are still online).
 */
export async function lookAgainAtWaiting(db: Executor, accountId: string, now: Date, groupsOnline?: string[]): Promise<number> {
  const groups = groupsOnline ? `and device_group is not null and not (device_group = any(?::text[]))` : '';
  const { rows } = await db.raw<{ rows: unknown[] }>(
    `update sms set route_check_at = ?
      where account_id = ? and status = 'pending' and upstream_id is null and route_rule >= 0 and (route_check_at is null or route_check_at > ?) ${groups}
      returning id`,
    [now, accountId, now, ...(groupsOnline ? [groupsOnline] : [])],
  );
  return rows.length;
}

/**
 * The account's routes changed: its SMS waiting for a device group's phones are looked at again
 * now (`routed`), or, with no routes left, handed back to any phone.
 */
export async function groupsChanged(db: Executor, accountId: string, routed: boolean, now: Date): Promise<void> {
  const change = routed ? `route_check_at = ?` : `device_group = null, route_check_at = null`;
  await db.raw(
    `update sms set ${change} where account_id = ? and status = 'pending' and upstream_id is null and device_group is not null`,
    [...(routed ? [now] : []), accountId],
  );
}

/**
 * No rule applies (`group` null: any phone may take it), a phone acknowledged it or it ended
 * (`group` undefined: left as it is): the router looks no more.
 */
export async function settle(db: Executor, id: string, rule: number, group?: null): Promise<void> {
  if (group === undefined) await db.raw(`update sms set route_rule = ?, route_check_at = null where id = ?`, [rule, id]);
  else await db.raw(`update sms set route_rule = ?, route_check_at = null, device_group = null where id = ?`, [rule, id]);
}

/**
 * The phones keep it under `rule` until `checkAt` (none: for good): those of device group `group`
 * only, or any (null). Kept for a group, it is taken back, in the same statement, from a phone
 * outside the group that had it and had not acknowledged it: that phone's id is answered, to be
 * told. A phone that acknowledged it is not here: the router no longer routes it.
 */
export async function keepForPhones(db: Executor, id: string, rule: number, since: Date, checkAt: Date | null, group: string | null): Promise<{ takenFrom: string | null }> {
  const { rows } = await db.raw<{ rows: { taken_from: string | null }[] }>(
    `update sms s set route_rule = ?, route_since = ?, route_check_at = ?, device_group = ?::text,
                      device_id = case when t.take_back then null else s.device_id end,
                      dispatched_at = case when t.take_back then null else s.dispatched_at end
       from (select x.id, x.device_id,
                    (?::text is not null and x.device_id is not null and x.dispatched_at is not null
                     and not ${deviceInGroup('x.device_id')}) as take_back
               from sms x where x.id = ?) t
      where s.id = t.id
      returning case when t.take_back then t.device_id end as taken_from`,
    [rule, since, checkAt, group, group, group, id],
  );
  return { takenFrom: rows[0]?.taken_from ?? null };
}

// While an upstream holds an SMS, route_since says when its submission began (null: none is under
// way, it waits for a retry at route_check_at). A submission that never answered is found by its
// age (stalled), so that the busy path writes no watchdog.

/**
 * Hands a pending SMS to an upstream under `rule`, its submission beginning now: no phone holds
 * it any more (one that had it unacknowledged is told, by the caller), processing. Its attempt
 * number moves on only if the one it is on was tried (it has a row): an SMS no phone reported on
 * goes upstream as its first attempt. Answers the attempt the upstream makes.
 */
export async function takeForUpstream(db: Executor, id: string, upstreamId: string, rule: number, now: Date): Promise<number> {
  const { rows } = await db.raw<{ rows: { attempt: number }[] }>(
    `update sms set status = 'processing', device_id = null, device_group = null, dispatched_at = ?, updated_at = ?, upstream_id = ?, route_rule = ?,
                    route_since = ?, route_check_at = null, upstream_tries = 0,
                    attempt = attempt + (exists (select 1 from sms_attempts a where a.sms_id = sms.id and a.attempt = sms.attempt))::int
      where id = ? and status = 'pending'
      returning attempt`,
    [now, now, upstreamId, rule, now, id],
  );
  return Number(rows[0]!.attempt);
}

/** SMS an upstream holds whose submission began before `before` and was never answered. */
export async function stalled(db: Executor, before: Date, limit: number): Promise<ToLookAt[]> {
  const { rows } = await db.raw<{ rows: ToLookAt[] }>(
    `select id, account_id from sms where status = 'processing' and upstream_id is not null and route_since < ? order by route_since limit ?`,
    [before, limit],
  );
  return rows;
}

/** A submission through the upstream begins now (a retry's). */
export async function submitting(db: Executor, id: string, now: Date): Promise<void> {
  await db.raw(`update sms set route_since = ?, route_check_at = null where id = ?`, [now, id]);
}

/** Another try through the same upstream at `at`, after `tries` answers of "later"; no submission is under way meanwhile. */
export async function retryAt(db: Executor, id: string, tries: number, at: Date): Promise<void> {
  await db.raw(`update sms set upstream_tries = ?, route_check_at = ?, route_since = null where id = ?`, [tries, at, id]);
}

/** On to another upstream under `rule`, submitted at the router's next look. */
export async function moveToUpstream(db: Executor, id: string, upstreamId: string, rule: number, now: Date): Promise<void> {
  await db.raw(
    `update sms set upstream_id = ?, route_rule = ?, route_since = null, route_check_at = ?, upstream_tries = 0, attempt = attempt + 1 where id = ?`,
    [upstreamId, rule, now, id],
  );
}

/**
 * Back to the phones under `rule` after the upstreams before it could not take it: pending again,
 * for any phone (`group` null) or those of a device group, looked at again at once (the rule's
 * wait starts now), on its next attempt (the upstream's has its row). Processing is the gateway's own step (the API shows it as pending), so going
 * back is no status a client sees change; the history says why.
 */
export async function returnToPhones(db: Executor, id: string, rule: number, now: Date, why: string, group: string | null): Promise<void> {
  await db.raw(
    `with back as (
       update sms set status = 'pending', upstream_id = null, dispatched_at = null, updated_at = ?, route_rule = ?, route_since = ?, route_check_at = ?,
                      device_group = ?::text, attempt = attempt + 1
        where id = ? and status = 'processing' returning id)
     insert into sms_status_history (sms_id, status, source, reason, created_at) select id, 'pending', 'system', ?, ? from back`,
    [now, rule, now, now, group, id, why, now],
  );
}

/** Locks an SMS an upstream holds, to apply what the provider answered; undefined when it is no longer that upstream's. */
export async function lockHeldBy(db: Executor, id: string, upstreamId: string): Promise<RoutedRow | undefined> {
  const row = await lockForOutcome(db, id);
  return row && row.upstream_id === upstreamId ? row : undefined;
}

/** Locks an SMS (waiting for others: a receipt must not be lost) to apply a provider's answer. */
export async function lockForOutcome(db: Executor, id: string): Promise<RoutedRow | undefined> {
  const { rows } = await db.raw<{ rows: RoutedRow[] }>(
    `select ${COLUMNS} from sms where id = ? for update`,
    [id],
  );
  return rows[0];
}
