// Files whose rows are gone and whose bytes are still in their store (MMS media, call
// recordings). Deleting a media or recording row queues its file in file_removals in the same
// transaction (a trigger: cascades from a deleted account included), so the queue survives a
// crash; this removes the queued files and forgets each once its removal succeeded. A removal
// that fails stays queued, counted, with what follows it, for the next run (the retention
// sweep's, hourly). No lock is held while files are removed: two nodes removing the same file is
// harmless, as removing a missing file is no error.
import type { Logger } from '../common/logger.ts';
import type { Executor } from './database.ts';

export type FileStoreName = 'media' | 'recordings';

/** Queued removals read per statement. */
const BATCH = 200;

/** Removes the files queued for `store` with `remove`; answers how many were removed. */
export async function removeQueuedFiles(db: Executor, store: FileStoreName, remove: (key: string) => Promise<void>, logger: Logger): Promise<number> {
  let removed = 0;
  let after = 0;
  for (;;) {
    const rows: { id: string | number; storage_key: string }[] = await db('file_removals')
      .where({ store })
      .where('id', '>', after)
      .orderBy('id')
      .limit(BATCH)
      .select('id', 'storage_key');
    if (rows.length === 0) return removed;
    const done: (string | number)[] = [];
    let failed: { id: string | number; error: unknown } | undefined;
    for (const row of rows) {
      try {
        await remove(row.storage_key);
        done.push(row.id);
      } catch (error) {
        failed = { id: row.id, error };
        break;
      }
    }
    if (done.length > 0) await db('file_removals').whereIn('id', done).delete();
    removed += done.length;
    if (failed) {
      // The store is most likely away (a bucket unreachable): one line, and the rest waits too.
      await db('file_removals').where({ id: failed.id }).increment('attempts', 1);
      logger.warn({ err: failed.error, store, removed }, 'queued file not removed; the rest is tried again at the next retention run');
      return removed;
    }
    // INT8: a string from pg, a number from PGlite.
    after = Number(rows[rows.length - 1]!.id);
    if (rows.length < BATCH) return removed;
  }
}
