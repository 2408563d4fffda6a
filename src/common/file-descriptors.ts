// How many client connections the process may hold. Every connection is a file descriptor, and a
// process that has used all of its own can accept nothing more: not a health check, not a phone.
// The connection budget (CONNECTION_BUDGET; by default the open-file limit less a reserve for the
// database pool, Redis, files and the listening sockets) is shared out among the listeners, so
// that none can take another's descriptors: half for MQTT (the phones), a quarter for HTTP, a
// sixteenth each for SMPP and SMTP, and the last eighth left for outbound connections (webhooks,
// object storage). Within each listener's share, connections that have not yet said who they are
// wait in a room of a quarter of it (waiting-room.ts), so that they cannot fill the share either.
import { readFileSync } from 'node:fs';

/** Descriptors kept for everything but client connections: database pool, Redis, files, listeners. */
export const FD_RESERVE = 256;
/** The open-file limit assumed where the process cannot read its own (not Linux). */
const ASSUMED_FD_LIMIT = 1024;

/** Each listener's share of the connection budget: the most connections it holds at once. */
export interface ListenerShares {
  mqtt: number;
  http: number;
  smpp: number;
  smtp: number;
}

/** The connection budget when CONNECTION_BUDGET is unset: what the reserve leaves of the open-file limit. */
export function defaultConnectionBudget(fdLimit = openFileLimit()): number {
  return Math.max(0, fdLimit - FD_RESERVE);
}

/** The budget shared out; however small the budget, each listener keeps a few places. */
export function listenerShares(budget = defaultConnectionBudget()): ListenerShares {
  return {
    mqtt: Math.max(64, Math.floor(budget / 2)),
    http: Math.max(64, Math.floor(budget / 4)),
    smpp: Math.max(16, Math.floor(budget / 16)),
    smtp: Math.max(16, Math.floor(budget / 16)),
  };
}

/** Places in a listener's waiting room (connections not yet identified): a quarter of its connections, at least 8. */
export function waitingPlaces(listenerConnections: number): number {
  return Math.max(8, Math.floor(listenerConnections / 4));
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
