// The queue of files whose rows are gone: a file that cannot be removed stays queued, counted,
// without holding back the files queued after it; several failures in a row mean the store is
// away, and the run stops there. A key the directory store could not have written (another
// store's) names nothing to remove.
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import type { Knex } from 'knex';
import { createLogger } from '../../src/common/logger.ts';
import { FilesystemRecordingStore } from '../../src/modules/calls/recordings/filesystem-store.ts';
import { FAILURES_THAT_STOP, removeQueuedFiles } from '../../src/storage/file-removals.ts';
import { useGateway } from '../support/use-gateway.ts';
import { queuedFileRemovals, queueFileRemovals } from '../support/test-data.ts';

const quiet = createLogger('silent');

describe('retention: the queue of files to remove', () => {
  const fx = useGateway();
  // Each test works in a transaction it rolls back: the queue is the database's, and a gateway's own
  // removal run (this one's, or another suite's on a shared database) would otherwise take the
  // rows from under it. Rows others queued are seen, and what the test does to them is undone.
  let trx: Knex.Transaction;
  const db = () => trx;
  beforeEach(async () => {
    trx = await fx.gateway.services.db.transaction();
  });
  afterEach(async () => {
    await trx.rollback();
  });

  /** Queues keys for the media store; answers them, each unique to this test. */
  async function queue(...labels: string[]): Promise<string[]> {
    const keys = labels.map((label) => `${label}-${randomUUID()}`);
    await queueFileRemovals(db(), 'media', keys);
    return keys;
  }
  const stillQueued = (keys: string[]) => queuedFileRemovals(db(), keys);

  it('when one file cannot be removed, then the files after it are removed, and it stays queued with its attempt counted', async () => {
    const [stuck, ...others] = await queue('stuck', 'next', 'last');
    const removed: string[] = [];
    await removeQueuedFiles(db(), 'media', async (key) => {
      if (key === stuck) throw new Error('permission denied');
      removed.push(key);
    }, quiet);
    expect(removed).to.include.members(others);
    expect(await stillQueued([stuck!, ...others])).to.deep.equal([{ key: stuck, attempts: 1 }]);
  });

  it(`when ${FAILURES_THAT_STOP} removals in a row fail, then the store is taken to be away: the run stops and the rest waits`, async () => {
    const keys = await queue('away', 'away', 'away', 'away', 'away');
    let tried = 0;
    await removeQueuedFiles(db(), 'media', async () => {
      tried++;
      throw new Error('connect ECONNREFUSED');
    }, quiet);
    // The queue may hold other suites' files before these: whichever they are, no more are tried.
    expect(tried).to.equal(FAILURES_THAT_STOP);
    expect((await stillQueued(keys)).map((row) => row.key)).to.deep.equal(keys);
  });

  it("when the directory store is given a key it could not have written, then there is nothing to remove and no error", async () => {
    const root = await mkdtemp(path.join(os.tmpdir(), 'removals-'));
    try {
      const store = new FilesystemRecordingStore(root);
      await store.remove('test/not-a-key-of-this-store');
      await store.remove('../../etc/passwd');
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
