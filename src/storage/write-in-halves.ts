// A batch written as one statement fails whole when one of its rows breaks it (a constraint, a
// value): the rows beside it must not fail with it. Written again in halves, the failing rows end
// up alone and the others go in, in about 2·log2(n) statements where row by row would take n. A
// failure that is not one row's (an outage, a lost race for locks, a statement the database
// refuses whole) would meet every half alike: it stops the writing, and the caller decides what
// becomes of the rows not written (hold them, write them later, refuse them).
import { isRowLevelFailure } from './database-errors.ts';

/** What stopped the writing, and the rows it left unwritten. */
export interface Stopped<T> {
  error: unknown;
  rows: T[];
}

/**
 * Writes `rows` with `write`, in halves where one of them breaks the statement; `failedAlone` hears
 * each row that failed on its own. Answers what stopped the writing, if anything did.
 */
export async function writeInHalves<T>(rows: T[], write: (rows: T[]) => Promise<void>, failedAlone: (row: T, error: unknown) => void): Promise<Stopped<T> | undefined> {
  if (rows.length === 0) return undefined;
  try {
    await write(rows);
    return undefined;
  } catch (error) {
    if (!isRowLevelFailure(error)) return { error, rows };
    if (rows.length === 1) {
      failedAlone(rows[0]!, error);
      return undefined;
    }
    const half = Math.ceil(rows.length / 2);
    const stopped = await writeInHalves(rows.slice(0, half), write, failedAlone);
    if (stopped) return { error: stopped.error, rows: [...stopped.rows, ...rows.slice(half)] };
    return writeInHalves(rows.slice(half), write, failedAlone);
  }
}
