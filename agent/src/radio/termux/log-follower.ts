// Follows a phone log that grows at its newest end (the SMS inbox, the call log) and hands each new
// entry over once, oldest first.
//
// The cursor is the list of keys of the newest entries already handed over (or already there when
// the agent first ran), not a single "last id" or "last time": Android reuses the id of a deleted
// newest SMS, the call log has no id at all, and its times are local wall-clock times that jump
// with the clock. An entry is new when its key is unknown and it sits above the oldest known entry
// of what was read; what lies below is history the cursor no longer needs to remember.
import type { RadioMemory } from '../radio.ts';

export interface FollowedLog<Entry> {
  /** For problems: "SMS inbox", "call log". */
  readonly name: string;
  /** `limit` entries starting `offset` entries back from the newest, returned oldest first. */
  readPage(offset: number, limit: number): Promise<Entry[]>;
  /** Stable for the entry across reads and restarts. */
  key(entry: Entry): string;
  /** Resolves once the agent kept the entry; a rejection means "hand it over again later". */
  handOver(entry: Entry): Promise<void>;
}

export interface FollowerSettings {
  /** Entries read per command; also how many keys the cursor keeps. */
  pageSize: number;
  /** Pages read back at most in one poll, when many entries came in while the agent was away. */
  maxPages: number;
  problem(message: string): void;
}

interface Cursor {
  /** Keys of the newest entries handed over or already there, oldest first. */
  known: string[];
}

export class LogFollower<Entry> {
  constructor(
    private readonly log: FollowedLog<Entry>,
    private readonly memory: RadioMemory,
    private readonly memoryKey: string,
    private readonly settings: FollowerSettings,
  ) {}

  /** Reads the log and hands over what is new; rejects at the first entry the agent did not take. */
  async poll(): Promise<void> {
    const cursor = this.readCursor();
    if (!cursor) {
      await this.startFromNow();
      return;
    }
    const known = new Set(cursor.known);
    const entries = await this.readBackToKnown(known);
    const oldestKnown = entries.findIndex((entry) => known.has(this.log.key(entry)));
    const fresh = entries.slice(oldestKnown + 1).filter((entry) => !known.has(this.log.key(entry)));

    // With nothing known in sight (the log was cleared, or the phone returned an odd empty page)
    // the old keys are kept: forgetting them could make the next read take old history for new.
    const keptKeys = oldestKnown === -1 ? [...cursor.known] : entries.map((entry) => this.log.key(entry)).filter((key) => known.has(key));
    let saved = cursor.known;
    const save = async (): Promise<void> => {
      const next = keptKeys.slice(-this.settings.pageSize);
      if (sameKeys(next, saved)) return;
      await this.memory.set(this.memoryKey, { known: next } satisfies Cursor);
      saved = next;
    };

    for (const entry of fresh) {
      await this.log.handOver(entry);
      keptKeys.push(this.log.key(entry));
      // Kept after each one, so a crash in the middle repeats nothing already taken.
      await save();
    }
    await save();
  }

  /**
   * The first run ever remembers what the log holds now and hands none of it over: the gateway
   * should not get the phone's whole history as if it had just arrived.
   */
  private async startFromNow(): Promise<void> {
    const newest = await this.log.readPage(0, this.settings.pageSize);
    await this.memory.set(this.memoryKey, { known: newest.map((entry) => this.log.key(entry)) } satisfies Cursor);
  }

  /** Reads pages back from the newest until one holds a known entry or the log ends; oldest first. */
  private async readBackToKnown(known: ReadonlySet<string>): Promise<Entry[]> {
    const { pageSize, maxPages } = this.settings;
    const pages: Entry[][] = [];
    for (let index = 0; index < maxPages; index += 1) {
      const page = await this.log.readPage(index * pageSize, pageSize);
      pages.unshift(page);
      if (page.length < pageSize || page.some((entry) => known.has(this.log.key(entry)))) return this.distinct(pages.flat());
    }
    this.settings.problem(
      `${this.log.name}: more than ${maxPages * pageSize} new entries since the last read; only the newest ${maxPages * pageSize} are handed over`,
    );
    return this.distinct(pages.flat());
  }

  // An entry arriving between two page reads shifts the pages by one, so one can be read twice.
  private distinct(entries: Entry[]): Entry[] {
    const seen = new Set<string>();
    return entries.filter((entry) => {
      const key = this.log.key(entry);
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
  }

  private readCursor(): Cursor | undefined {
    const stored = this.memory.get<unknown>(this.memoryKey);
    if (typeof stored !== 'object' || stored === null || !('known' in stored)) return undefined;
    const { known } = stored;
    if (!Array.isArray(known) || !known.every((key) => typeof key === 'string')) return undefined;
    return { known };
  }
}

function sameKeys(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((key, index) => key === b[index]);
}
