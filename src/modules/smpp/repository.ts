// SMPP's tables: credentials, the SMS submitted over SMPP, and the deliver_sm waiting for their ESME.
import { randomUUID } from 'node:crypto';
import type { Executor } from '../../storage/database.ts';
import type { DefaultAlphabet, PendingDeliver, PendingDeliverKind, SmppCredential, SmppSubmission } from './types.ts';

export interface CredentialRow extends SmppCredential {
  password_hash: string;
}

export interface NewCredential {
  accountId: string;
  systemId: string;
  passwordHash: string;
  name: string;
  deviceIds: string[];
  throughputPerSecond: number;
  windowSize: number;
  defaultDataCoding: DefaultAlphabet;
}

export async function insertCredential(db: Executor, values: NewCredential): Promise<CredentialRow> {
  const [row] = await db<CredentialRow>('smpp_credentials')
    .insert({
      id: randomUUID(),
      account_id: values.accountId,
      system_id: values.systemId,
      password_hash: values.passwordHash,
      name: values.name,
      device_ids: values.deviceIds,
      throughput_per_second: values.throughputPerSecond,
      window_size: values.windowSize,
      default_data_coding: values.defaultDataCoding,
    })
    .returning('*');
  return row!;
}

export async function findWorkingBySystemId(db: Executor, systemId: string): Promise<CredentialRow | undefined> {
  return db<CredentialRow>('smpp_credentials').where({ system_id: systemId }).whereNull('revoked_at').first();
}

export async function findCredential(db: Executor, id: string): Promise<CredentialRow | undefined> {
  return db<CredentialRow>('smpp_credentials').where({ id }).first();
}

export async function listCredentials(db: Executor, accountId?: string): Promise<CredentialRow[]> {
  const query = db<CredentialRow>('smpp_credentials').orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }]);
  if (accountId) query.where({ account_id: accountId });
  return query;
}

export async function updateCredential(db: Executor, id: string, change: { name?: string | undefined; default_data_coding?: DefaultAlphabet | undefined }): Promise<CredentialRow | undefined> {
  const values = Object.fromEntries(Object.entries(change).filter(([, value]) => value !== undefined));
  const [row] = await db<CredentialRow>('smpp_credentials').where({ id }).update(values).returning('*');
  return row;
}

export async function revokeCredential(db: Executor, id: string, accountId?: string): Promise<CredentialRow | undefined> {
  const query = db<CredentialRow>('smpp_credentials').where({ id }).whereNull('revoked_at');
  if (accountId) query.where({ account_id: accountId });
  const [row] = await query.update({ revoked_at: db.fn.now() as unknown as Date }).returning('*');
  return row;
}

export async function insertSubmission(db: Executor, submission: Omit<SmppSubmission, 'submittedAt'>): Promise<void> {
  await db('smpp_submissions').insert({
    sms_id: submission.smsId,
    credential_id: submission.credentialId,
    source_addr: submission.sourceAddr,
    registered_delivery: submission.registeredDelivery,
    data_coding: submission.dataCoding,
  });
}

interface SubmissionRow {
  sms_id: string;
  credential_id: string;
  source_addr: string;
  registered_delivery: number;
  data_coding: number;
  created_at: Date;
}

function toSubmission(row: SubmissionRow): SmppSubmission {
  return {
    smsId: row.sms_id,
    credentialId: row.credential_id,
    sourceAddr: row.source_addr,
    registeredDelivery: Number(row.registered_delivery),
    dataCoding: Number(row.data_coding),
    submittedAt: new Date(row.created_at),
  };
}

/** The record of an SMS submitted by one of the account's credentials; undefined for any other. */
export async function submissionOfAccount(db: Executor, smsId: string, accountId: string): Promise<SmppSubmission | undefined> {
  const row = await db('smpp_submissions as s')
    .join('smpp_credentials as c', 'c.id', 's.credential_id')
    .where({ 's.sms_id': smsId, 'c.account_id': accountId })
    .first<SubmissionRow | undefined>('s.*');
  return row ? toSubmission(row) : undefined;
}

export async function updateRegisteredDelivery(db: Executor, smsId: string, registeredDelivery: number): Promise<void> {
  await db('smpp_submissions').where({ sms_id: smsId }).update({ registered_delivery: registeredDelivery });
}

export async function submissionsOf(db: Executor, smsIds: string[]): Promise<SmppSubmission[]> {
  if (smsIds.length === 0) return [];
  const rows: SubmissionRow[] = await db('smpp_submissions').whereIn('sms_id', smsIds);
  return rows.map(toSubmission);
}

export interface NewPendingDeliver {
  credentialId: string;
  kind: PendingDeliverKind;
  sourceAddr: string;
  destinationAddr: string;
  shortMessage: string;
  receiptedMessageId?: string | undefined;
  messageState?: number | undefined;
}

export async function insertPending(db: Executor, rows: NewPendingDeliver[]): Promise<void> {
  if (rows.length === 0) return;
  await db('smpp_receipts').insert(
    rows.map((row) => ({
      credential_id: row.credentialId,
      kind: row.kind,
      source_addr: row.sourceAddr,
      destination_addr: row.destinationAddr,
      short_message: row.shortMessage,
      receipted_message_id: row.receiptedMessageId ?? null,
      message_state: row.messageState ?? null,
    })),
  );
}

/**
 * Takes up to `limit` of a credential's pending deliver_sm, oldest first, for `leaseMs`: a node
 * that holds a session of it sends them; one not answered within the lease is taken again (the
 * retry). SKIP LOCKED: several nodes with sessions of one system_id never take the same row.
 */
export async function claimPending(db: Executor, credentialId: string, limit: number, leaseMs: number): Promise<PendingDeliver[]> {
  const result = await db.raw(
    `update smpp_receipts set claimed_until = now() + make_interval(secs => ?), attempts = attempts + 1
      where id in (
        select id from smpp_receipts
         where credential_id = ? and (claimed_until is null or claimed_until < now())
         order by id limit ? for update skip locked)
      returning *`,
    [leaseMs / 1000, credentialId, limit],
  );
  const rows = (result.rows ?? []) as PendingDeliver[];
  return rows.map((row) => ({ ...row, id: String(row.id), attempts: Number(row.attempts) })).sort((a, b) => Number(a.id) - Number(b.id));
}

export async function deletePending(db: Executor, id: string): Promise<void> {
  await db('smpp_receipts').where({ id }).del();
}

/** Lets a row be taken again at once (its session ended before the ESME answered). */
export async function releasePending(db: Executor, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await db('smpp_receipts').whereIn('id', ids).update({ claimed_until: null });
}

export async function countPending(db: Executor): Promise<number> {
  const row = await db('smpp_receipts').count<{ count: string | number }[]>('* as count').first();
  return Number(row?.count ?? 0);
}

/** Removes what waited longer than the retention time; answers how many. */
export async function purgePending(db: Executor, olderThan: Date): Promise<number> {
  return db('smpp_receipts').where('created_at', '<', olderThan).del();
}

/** Credentials with something pending: their sessions are asked to send it. */
export async function credentialsWithPending(db: Executor): Promise<string[]> {
  const rows = await db('smpp_receipts').distinct('credential_id');
  return rows.map((row: { credential_id: string }) => row.credential_id);
}

/** Forgets submissions older than `olderThan`: no status change can come for them any more. */
export async function purgeSubmissions(db: Executor, olderThan: Date): Promise<number> {
  return db('smpp_submissions').where('created_at', '<', olderThan).del();
}
