// Records when devices were last seen, many devices per write (storage/coalescing-writer.ts).
//
// Connects and disconnects come in bursts: after a gateway restart the whole fleet reconnects
// within seconds, and before it the whole fleet disconnects. One UPDATE per event made the
// database's flush rate the limit on how fast a fleet comes online, and held pool connections
// that CONNECT authentication was queued behind. last_seen_at is informational (legacy
// last_online_date); a crash loses at most the last few milliseconds of it.
import type { Database } from '../../storage/database.ts';
import type { Logger } from '../../common/logger.ts';
import { isUuid } from '../../common/object-id.ts';
import { CoalescingWriter } from '../../storage/coalescing-writer.ts';
import { recordLastSeen } from './repository.ts';

type Seen = [id: string, at: Date];

export class LastSeenWriter {
  private readonly writer: CoalescingWriter<Seen>;

  constructor(db: Database, logger: Logger) {
    this.writer = new CoalescingWriter<Seen>({
      delayMs: 20,
      maxBatch: 2000,
      merge: (waiting, arriving) => (arriving[1] >= waiting[1] ? arriving : waiting),
      write: (batch) => recordLastSeen(db, batch),
      logger,
      whileDatabaseDown: 'last-seen times held until it answers',
      failed: 'last seen not recorded',
    });
  }

  touch(deviceId: string, at = new Date()): void {
    if (isUuid(deviceId)) this.writer.add(deviceId, [deviceId, at]);
  }

  /** Writes what is waiting and takes no more: the database is about to close. */
  close(): Promise<void> {
    return this.writer.close();
  }
}
