// The embedded database must have one process at a time: PGlite runs without fsync and a
// second process on the same directory corrupts it (architecture pitfalls). A lock file with the
// owner's pid keeps a CLI command from opening the directory under a running gateway.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export class DataDirLockedError extends Error {
  constructor(dir: string, pid: number) {
    super(
      `the embedded database in ${dir} is in use by process ${pid}. Stop that gateway first, ` +
        'or use the HTTP API (or DATABASE_URL with PostgreSQL) while it runs.',
    );
    this.name = 'DataDirLockedError';
  }
}

/** Takes the lock on `dir`; returns the function that releases it. */
export function lockDataDir(dir: string): () => void {
  const file = join(dir, 'gateway.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(file, String(process.pid), { flag: 'wx' });
      return () => rmSync(file, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = Number(readFileSync(file, 'utf8'));
      if (Number.isInteger(owner) && owner > 0 && owner !== process.pid && isAlive(owner)) {
        throw new DataDirLockedError(dir, owner);
      }
      // The owner is gone (a crash): the lock is stale.
      rmSync(file, { force: true });
    }
  }
  throw new Error(`could not lock ${dir}`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
