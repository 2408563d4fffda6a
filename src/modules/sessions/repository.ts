import { randomUUID } from 'node:crypto';
import type { Executor } from '../../storage/database.ts';
import type { UserRow } from '../users/types.ts';

export interface SessionRow {
  id: string;
  token_hash: string;
  csrf_token: string;
  user_id: string;
  created_at: Date;
  last_seen_at: Date;
  expires_at: Date;
  address: string | null;
}

export async function insertSession(
  db: Executor,
  values: { tokenHash: string; csrfToken: string; userId: string; now: Date; expiresAt: Date; address: string | undefined },
): Promise<SessionRow> {
  const [row] = await db<SessionRow>('sessions')
    .insert({
      id: randomUUID(),
      token_hash: values.tokenHash,
      csrf_token: values.csrfToken,
      user_id: values.userId,
      created_at: values.now,
      last_seen_at: values.now,
      expires_at: values.expiresAt,
      address: values.address ?? null,
    })
    .returning('*');
  return row!;
}

/** The session of a token hash, with its user. */
export async function findSession(db: Executor, tokenHash: string): Promise<{ session: SessionRow; user: UserRow } | undefined> {
  const session = await db<SessionRow>('sessions').where({ token_hash: tokenHash }).first();
  if (!session) return undefined;
  const user = await db<UserRow>('users').where({ id: session.user_id }).first();
  return user ? { session, user } : undefined;
}

export async function touchSession(db: Executor, id: string, at: Date): Promise<void> {
  await db('sessions').where({ id }).update({ last_seen_at: at });
}

export async function deleteSession(db: Executor, id: string): Promise<void> {
  await db('sessions').where({ id }).delete();
}

/** Every session of a user but one (after a password change, the others end). */
export async function deleteOtherSessions(db: Executor, userId: string, keepId: string): Promise<void> {
  await db('sessions').where({ user_id: userId }).whereNot({ id: keepId }).delete();
}

/** Every session of a user (disabled, removed, or given a new password by someone else). */
export async function deleteUserSessions(db: Executor, userId: string): Promise<void> {
  await db('sessions').where({ user_id: userId }).delete();
}

/** Deletes the user's sessions that have ended (idle since `idleSince`, or past their absolute end). */
export async function deleteEndedSessions(db: Executor, userId: string, now: Date, idleSince: Date): Promise<void> {
  await db('sessions')
    .where({ user_id: userId })
    .andWhere((ended) => ended.where('expires_at', '<=', now).orWhere('last_seen_at', '<=', idleSince))
    .delete();
}
