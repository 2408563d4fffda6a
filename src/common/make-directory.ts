// `mkdir -p` that fails instead of hanging. Node's recursive mkdir loops for ever when a file
// system answers ENOENT for a directory it will never create (DATA_DIR=/proc/gateway: /proc exists,
// but nothing may be made in it), which turned a wrong path in a setting into a process that never
// starts and never says why. Here the missing parts are made one at a time from the nearest one
// that exists, so such a path fails at once with the system's own error code.
import { existsSync, mkdirSync } from 'node:fs';
import { mkdir, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';

/** Creates `path` and its missing parents (each with `mode`); a directory already there is fine. */
export function makeDirectory(path: string, mode?: number): void {
  for (const part of missingParts(path, existsSync)) {
    try {
      mkdirSync(part, { mode });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
}

/** makeDirectory without blocking the event loop, for paths made while the gateway serves. */
export async function makeDirectoryAsync(path: string, mode?: number): Promise<void> {
  const present = new Set<string>();
  // The walk up is short (a few stats); the answers are gathered first so the walk itself stays sync.
  for (let part = resolve(path); ; part = dirname(part)) {
    if (await stat(part).then(() => true, () => false)) {
      present.add(part);
      break;
    }
    if (dirname(part) === part) break;
  }
  for (const part of missingParts(path, (candidate) => present.has(candidate))) {
    try {
      await mkdir(part, { mode });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
}

/** The parts of `path` below its nearest existing ancestor, outermost first. */
function missingParts(path: string, exists: (part: string) => boolean): string[] {
  const missing: string[] = [];
  for (let part = resolve(path); !exists(part); part = dirname(part)) {
    missing.unshift(part);
    if (dirname(part) === part) break;
  }
  return missing;
}
