// How many client connections the process may hold. Every connection is a file descriptor, and a
// process that has used all of its own can accept nothing more: not a health check, not a phone.
// HTTP and MQTT each get half of the descriptors left after a reserve, so that neither can take
// the other's share (src/http/server-limits.ts, broker/connection-limits.ts).
import { readFileSync } from 'node:fs';

/** Descriptors kept for everything but client connections: database pool, Redis, files, listeners. */
export const FD_RESERVE = 256;
/** The open-file limit assumed where the process cannot read its own (not Linux). */
const ASSUMED_FD_LIMIT = 1024;

/** One listener's share of the process's file descriptors: half of what the reserve leaves (at least 64). */
export function connectionShare(fdLimit = openFileLimit()): number {
  return Math.max(64, Math.floor((fdLimit - FD_RESERVE) / 2));
}

/** The process's soft limit on open files (ulimit -n), read from /proc; an assumption elsewhere. */
export function openFileLimit(): number {
  try {
    const line = /^Max open files\s+(\S+)/m.exec(readFileSync('/proc/self/limits', 'utf8'));
    if (!line) return ASSUMED_FD_LIMIT;
    return line[1] === 'unlimited' ? 1_048_576 : Number(line[1]) || ASSUMED_FD_LIMIT;
  } catch {
    return ASSUMED_FD_LIMIT;
  }
}
