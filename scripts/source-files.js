// What the build scripts (build.js, panel-build.js) share: how a source file is fingerprinted,
// and reading a build stamp. Plain JavaScript: it runs before anything is compiled.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Appends `describe()` of every file below `dir` (none when it does not exist). */
export function walk(dir, entries) {
  if (!existsSync(dir)) return;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) walk(path, entries);
    else if (entry.isFile()) entries.push(describe(path));
  }
}

/** A file as a fingerprint line: its path from the package root, size and modification time. */
export function describe(path) {
  const stat = statSync(path);
  return `${relative(ROOT, path)}:${stat.size}:${stat.mtimeMs}`;
}

/** A stamp file's JSON, or undefined when it is missing or unreadable. */
export function readStamp(path) {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return undefined;
  }
}
