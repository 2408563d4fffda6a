// Finds the devices that CONNECT packets name, many per query.
//
// Every CONNECT needs its device's row (token hash, account, settings) before the broker can
// answer. A reconnect storm brings thousands of CONNECTs within a second; one query each would
// queue them all on the pool, one round trip at a time, behind everything else the devices cause.
// Each lookup still reads the row after its CONNECT arrived, so revocation (token hash cleared,
// deleted_at set) takes effect for the next CONNECT as before.
import type { Database } from '../../storage/database.ts';
import { findLiveDevices, type DeviceRow } from './repository.ts';
import { isUuid } from '../../common/object-id.ts';
import { GatheredReads } from '../../common/gathered-reads.ts';

/**
 * Ids per query; in a storm (another query within BUSY_WITHIN_MS) a query waits GATHER_MS for
 * more CONNECTs. A lone CONNECT on a quiet gateway is looked up at the next turn of the loop.
 */
const MAX_BATCH = 1000;
const GATHER_MS = 5;
const BUSY_WITHIN_MS = 100;

export class ConnectLookup {
  private readonly reads: GatheredReads<string, DeviceRow>;

  constructor(db: Database) {
    this.reads = new GatheredReads(
      async (ids) => new Map((await findLiveDevices(db, ids)).map((row) => [row.id.toLowerCase(), row])),
      { maxKeys: MAX_BATCH, gatherMs: GATHER_MS, busyWithinMs: BUSY_WITHIN_MS },
    );
  }

  /** The live (not deleted) device with this id, as findLiveDevice answers it. */
  async find(id: string): Promise<DeviceRow | undefined> {
    if (!isUuid(id)) return undefined;
    // Two CONNECTs of one device (a takeover) may share a read and so the row: the CONNECT only
    // reads it, and the connection keeps a frozen record of its own (broker/identity.ts).
    return this.reads.get(id.toLowerCase());
  }
}
