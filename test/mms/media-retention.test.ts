// MEDIA_RETENTION_DAYS: media older than that go, row and file (through the queue of file
// removals that every deletion of a media row fills, so a removal that fails is tried again);
// younger media stay, and their bytes are still served.
import { expect } from 'chai';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { useGateway } from '../support/use-gateway.ts';
import { mediaRowsOf, queuedFileRemovals, stampMedia } from '../support/test-data.ts';
import { download, jpeg, mmsConfig, uploadMedia } from './mms-fixture.ts';

const RETENTION_DAYS = 30;
const daysAgo = (days: number) => new Date(Date.now() - days * 24 * 3600 * 1000);

describe('mms: media retention', () => {
  const fx = useGateway({ config: mmsConfig(() => fx, { retentionDays: RETENTION_DAYS }) });

  it('removes the media (rows and files) older than MEDIA_RETENTION_DAYS and keeps the younger ones', async () => {
    const uploaded = async (seed: number) => {
      const reply = await uploadMedia(fx, fx.tenant.key!, jpeg(4096, seed), 'image/jpeg');
      expect(reply.status, JSON.stringify(reply.body)).to.equal(201);
      return reply.body as { id: string; download_path: string };
    };
    const old = await uploaded(1);
    const recent = await uploaded(2);
    const keyOf = async (id: string) => (await mediaRowsOf(fx, fx.tenant.accountId)).find((media) => media.id === id)!.storage_key as string;
    const oldKey = await keyOf(old.id);
    const oldFile = join(fx.gateway.config.mms.directory!, oldKey);
    const recentFile = join(fx.gateway.config.mms.directory!, await keyOf(recent.id));
    expect((await stat(oldFile)).isFile(), 'the old file before the run').to.equal(true);
    await stampMedia(fx, old.id, daysAgo(RETENTION_DAYS + 1));
    await stampMedia(fx, recent.id, daysAgo(RETENTION_DAYS - 1));

    // At least the old one (the database may hold other old rows from other suites' runs).
    expect(await fx.gateway.services.media.expire()).to.be.at.least(1);
    expect(await stat(oldFile).then(() => 'still there', (error: NodeJS.ErrnoException) => error.code)).to.equal('ENOENT');
    expect((await mediaRowsOf(fx, fx.tenant.accountId)).map((media) => media.id)).to.deep.equal([recent.id]);
    expect(await queuedFileRemovals(fx, [oldKey]), 'its queued removal done').to.deep.equal([]);
    expect((await stat(recentFile)).isFile()).to.equal(true);
    const bearer = `Bearer ${fx.tenant.key}`;
    expect((await download(fx.baseUrl + old.download_path, bearer)).status).to.equal(404);
    expect((await download(fx.baseUrl + recent.download_path, bearer)).status).to.equal(200);
  });
});
