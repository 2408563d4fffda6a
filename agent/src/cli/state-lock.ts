// One process per device: two agents with the same credentials would take the connection from
// each other for ever, and two writers would tear the journal. A lock file in the state directory
// holds the running process's id; a lock left by a process that is gone is taken over, and so is
// one written before the machine last started: a phone that lost power, or was shut down before
// the agent could stop, leaves its lock behind, and after the reboot another process (of another
// app, even) may have that id.
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { uptime } from 'node:os';
import { join } from 'node:path';

export function lockStateDir(dir: string): () => void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, 'agent.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(file, `${process.pid}\n`, { flag: 'wx', mode: 0o600 });
      return () => rmSync(file, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const pid = Number(readFileSync(file, 'utf8').trim());
      if (Number.isInteger(pid) && pid > 0 && alive(pid) && !beforeThisBoot(file)) throw new Error(`another agent (process ${pid}) runs with the state directory ${dir}`);
      rmSync(file, { force: true });
    }
  }
  throw new Error(`could not lock the state directory ${dir}`);
}

/**
 * Whether the lock was written before the machine started (its time against the start, both on
 * this boot's clock). A clock set back at boot can hide an old lock; then the process id decides.
 */
function beforeThisBoot(file: string): boolean {
  const bootedAt = Date.now() - uptime() * 1000;
  return statSync(file).mtimeMs < bootedAt;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
