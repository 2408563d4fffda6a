// DATA_DIR holds the embedded database, call recordings, the webhook key file and the first-start
// banner with a live API key: nothing in it is anyone else's business. Files are made private
// whatever umask the gateway was started with, and an existing directory that others can read is
// tightened before it is used, or the start is refused when it cannot be.
import { chmodSync, lstatSync, readdirSync, statSync, type Stats } from 'node:fs';
import { join, resolve } from 'node:path';
import { StartupError } from '../common/errors.ts';
import type { Logger } from '../common/logger.ts';
import { makeDirectory } from '../common/make-directory.ts';

/** Group and others: no bit of theirs may be set on anything in DATA_DIR. */
const OTHERS = 0o077;

/**
 * Makes every file this process creates from now on private to its user (0600 files, 0700
 * directories). The embedded database engine creates hundreds of files of its own, with modes
 * we do not choose: the process umask is the one setting that reaches all of them.
 */
export function usePrivateUmask(): void {
  if (process.platform === 'win32') return;
  process.umask(OTHERS);
}

export interface TightenedDataDir {
  /** Entries whose group or other permission bits were removed, the directory itself included. */
  tightened: string[];
}

/**
 * Creates `dir` (0700) when `create` and it is missing, then removes group and other permission
 * bits from it and everything below it. Symbolic links are left alone (their own mode means
 * nothing) and never followed below the top, so a link cannot point the walk elsewhere. Throws a
 * StartupError naming the first path that stays open to others (owned by another user, or on a
 * file system that refuses the change).
 */
export function tightenDataDir(dir: string, { create }: { create: boolean }): TightenedDataDir {
  const tightened: string[] = [];
  if (process.platform === 'win32' || dir === ':memory:') return { tightened };
  const root = resolve(dir);
  let rootStats: Stats | undefined;
  try {
    // stat, not lstat: DATA_DIR itself may well be a link to a mounted volume.
    rootStats = statSync(root, { throwIfNoEntry: false });
    if (!rootStats) {
      if (!create) return { tightened };
      makeDirectory(root, 0o700);
      rootStats = statSync(root);
    }
  } catch (error) {
    // A path through a file, or a parent this user may not enter or write: a setting to fix,
    // said in one line, not a stack trace.
    const { code, message } = error as NodeJS.ErrnoException;
    throw new StartupError(`DATA_DIR ${root} cannot be used (${code ?? message}): set DATA_DIR to a directory this user may create or write`);
  }
  if (!rootStats.isDirectory()) throw new StartupError(`DATA_DIR ${root} is not a directory`);
  tighten(root, rootStats, tightened);
  walk(root, tightened);
  return { tightened };
}

function walk(dir: string, tightened: string[]): void {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    let stats: Stats;
    try {
      stats = lstatSync(path);
    } catch (error) {
      // Removed meanwhile (a lock file released by a stopping process): nothing to protect.
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw error;
    }
    if (stats.isSymbolicLink()) continue;
    tighten(path, stats, tightened);
    if (stats.isDirectory()) walk(path, tightened);
  }
}

function tighten(path: string, stats: Stats, tightened: string[]): void {
  if ((stats.mode & OTHERS) === 0) return;
  try {
    chmodSync(path, stats.mode & 0o7700);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const owner = typeof process.getuid === 'function' && stats.uid !== process.getuid() ? `owned by user ${stats.uid}, not by this process's user ${process.getuid()}` : code;
    throw new StartupError(
      `${path} in DATA_DIR can be read by other users (mode ${(stats.mode & 0o777).toString(8)}) and could not be made private (${owner}). ` +
        `Run the gateway as the owner of DATA_DIR, or fix it: chown -R <gateway user> ${shellWord(path)} && chmod -R go-rwx ${shellWord(path)}`,
    );
  }
  tightened.push(path);
}

function shellWord(path: string): string {
  return /^[\w./-]+$/.test(path) ? path : `'${path.replaceAll("'", "'\\''")}'`;
}

/**
 * What `serve` and the commands that open DATA_DIR run first: private files from now on, and
 * the directory made private, with one log line naming what had been open to others. With
 * PostgreSQL the directory is only made when something needs it (the webhook key file), so a
 * container without a writable DATA_DIR still starts.
 */
export function prepareDataDir(dataDir: string, embedded: boolean, logger: Logger): void {
  usePrivateUmask();
  const { tightened } = tightenDataDir(dataDir, { create: embedded });
  if (tightened.length === 0) return;
  const shown = tightened.slice(0, 5);
  logger.warn(
    { dataDir: resolve(dataDir), count: tightened.length, paths: shown },
    `DATA_DIR was readable by other users: removed group and other permissions from ${tightened.length} file(s) and director(ies)`,
  );
}
