// One budget of client connections for the whole process, so that connections nobody has
// authenticated yet cannot use up the file descriptors every listener needs. Without it, tens of
// thousands of SMPP connections that never bind, or HTTP connections that never send their
// headers, held every descriptor until their timeouts: then no listener accepted anything, not a
// health check, not a phone, not an ESME that had bound long before.
//
// The budget is the process's open-file limit less FD_RESERVE (the database pool, Redis, outbound
// webhooks, files, the listening sockets themselves): CONNECTION_BUDGET. Connections not yet
// authenticated hold a place in two pools: their listener's share (UNAUTHENTICATED_CONNECTIONS,
// by default a sixteenth of the budget) and, all listeners together, a quarter of the budget. A
// listener whose share is full closes new connections at once; the ones that authenticated keep
// being served, and the other listeners keep their own shares. A connection leaves the pools when
// its listener says it authenticated (SMPP bind, MQTT CONNACK accepted, HTTP headers received)
// or when it closes.
import type { ConnectionBudgetConfig } from '../config.ts';
import { FD_RESERVE, openFileLimit } from './file-descriptors.ts';

/** The listeners that take a share. */
export type ListenerName = 'http' | 'mqtt' | 'smpp' | 'smtp' | 'metrics';

/** A connection's place while it has not authenticated. Both calls are idempotent. */
export interface UnauthenticatedPlace {
  /** The listener authenticated the connection: its place is free for another newcomer. */
  authenticated(): void;
  /** The connection closed. */
  closed(): void;
}

/** The smallest share a listener gets, whatever the budget: enough for a few clients reconnecting at once. */
const SMALLEST_SHARE = 16;

export class ConnectionBudget {
  readonly total: number;
  readonly perListener: number;
  /** All listeners' unauthenticated connections together: a quarter of the budget. */
  readonly allListeners: number;
  private held = 0;
  private readonly heldBy = new Map<ListenerName, number>();

  constructor(config: ConnectionBudgetConfig, fdLimit = openFileLimit()) {
    this.total = config.total ?? Math.max(64, fdLimit - FD_RESERVE);
    this.perListener = config.unauthenticatedPerListener ?? Math.max(SMALLEST_SHARE, Math.floor(this.total / 16));
    this.allListeners = Math.max(this.perListener, Math.floor(this.total / 4));
  }

  /** Unauthenticated connections a listener holds now. */
  unauthenticated(listener: ListenerName): number {
    return this.heldBy.get(listener) ?? 0;
  }

  /** A place for a new connection on `listener`; undefined when its share, or all listeners' pool, is full. */
  admit(listener: ListenerName): UnauthenticatedPlace | undefined {
    const mine = this.unauthenticated(listener);
    if (mine >= this.perListener || this.held >= this.allListeners) return undefined;
    this.held++;
    this.heldBy.set(listener, mine + 1);
    let holding = true;
    const release = () => {
      if (!holding) return;
      holding = false;
      this.held--;
      this.heldBy.set(listener, this.unauthenticated(listener) - 1);
    };
    return { authenticated: release, closed: release };
  }
}
