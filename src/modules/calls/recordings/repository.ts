// The recording rows this module reads and removes itself; a call's own queries (and
// insertRecording, findRecording) live in the call log's repository.
import type { Executor } from '../../../storage/database.ts';

/** The call row, locked against deletion until the transaction ends (an upload that completes as the call goes). */
export async function lockCall(trx: Executor, callId: string): Promise<boolean> {
  return (await trx('calls').where({ id: callId }).forShare().first('id')) !== undefined;
}

/**
 * Deletes up to `limit` recordings stored before `cutoff`; answers how many. Their files are queued
 * for removal by the database itself, in the same statement (storage/file-removals.ts).
 */
export async function deleteRecordingsOlderThan(db: Executor, cutoff: Date, limit: number): Promise<number> {
  return db('call_recordings')
    .whereIn('call_id', db('call_recordings').select('call_id').where('created_at', '<', cutoff).orderBy('created_at').limit(limit))
    .delete();
}
