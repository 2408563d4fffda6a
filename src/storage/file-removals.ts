// Files whose rows are gone and whose bytes are still in their store (MMS media, call
// recordings). Deleting a media or recording row queues its file in file_removals in the same
// transaction (a trigger: cascades from a deleted account included), so the queue survives a
// crash; this removes the queued files and forgets each once its removal succeeded. A removal
// that fails stays queued, counted, for the next run (the retention sweep's, hourly), and the
// files after it are still tried: one file that cannot be removed must not hold back every file
// queued after it, for ever. Several failures in a row say the store itself is away (a bucket
// unreachable): the run stops there and the rest waits for the next one. No lock is held while
// files are removed: two nodes removing the same file is harmless, as removing a missing file is
// no error.
import type { Logger } from '../common/logger.ts';
import type { Executor } from './database.ts';

export type FileStoreName = 'media' | 'recordings';

/** Queued removals read per statement. */
const BATCH = 200;
/** Failed removals in a row that stop a run: the store is away, not one file. */
export const FAILURES_THAT_STOP = 3;

/** Removes the files queued for `store` with `remove`; answers how many were removed. */
export async function removeQueuedFiles(db: Executor, store: FileStoreName, remove: (key: string) => Promise<void>, logger: Logger): Promise<number> {
  let removed = 0;
  let after = 0;
  let failedInARow = 0;
  for (;;) {
    const rows: { id: string | number; storage_key: string }[] = await db('file_removals')
      .where({ store })
      .where('id', '>', after)
      .orderBy('id')
      .limit(BATCH)
      .select('id', 'storage_key');
    if (rows.length === 0) return removed;
    const done: (string | number)[] = [];
    const failed: (string | number)[] = [];
    let lastError: unknown;
    for (const row of rows) {
      try {
        await remove(row.storage_key);
        done.push(row.id);
        failedInARow = 0;
      } catch (error) {
        failed.push(row.id);
        lastError = error;
        if (++failedInARow >= FAILURES_THAT_STOP) break;
      }
    }
    if (done.length > 0) await db('file_removals').whereIn('id', done).delete();
    if (failed.length > 0) await db('file_removals').whereIn('id', failed).increment('attempts', 1);
    removed += done.length;
    if (failedInARow >= FAILURES_THAT_STOP) {
      // The store is most likely away: one line, and the rest waits for the next run.
      logger.warn({ err: lastError, store, removed }, 'queued files not removed; the rest is tried again at the next retention run');
      return removed;
    }
    if (failed.length > 0) logger.warn({ err: lastError, store, failed: failed.length }, 'queued files not removed; they are tried again at the next retention run');
    // INT8: a string from pg, a number from PGlite.
    after = Number(rows[rows.length - 1]!.id);
    if (rows.length < BATCH) return removed;
  }
}

/** Rows an expiry deletes per statement: a long-unrun job catches up in bounded steps. */
const EXPIRY_BATCH = 500;

/**
 * Deletes expired rows whose deletion queues their files (`deleteBatch` deletes at most `limit`
 * and answers how many it deleted) a batch at a time, then removes the files so queued: the queue is
 * the one way a file goes, so a removal that fails is tried again like any other. Answers how many
 * rows were deleted.
 */
export async function expireWithFiles(deleteBatch: (limit: number) => Promise<number>, removeQueued: () => Promise<number>): Promise<number> {
  let deleted = 0;
  for (;;) {
    const count = await deleteBatch(EXPIRY_BATCH);
    deleted += count;
    if (count < EXPIRY_BATCH) break;
  }
  if (deleted > 0) await removeQueued();
  return deleted;
}
