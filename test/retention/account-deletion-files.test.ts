// Deleting an account removes its files, not only its rows: media it uploaded, parts of MMS its
// phones received and its call recordings leave the store directories. The removal is queued in
// the deletion's own transaction, so a process that stops right after the commit leaves nothing
// for ever: the next retention run removes what is still queued.
import { expect } from 'chai';
import { readdir } from 'node:fs/promises';
import { ManualClock } from '../../src/common/clock.ts';
import { useGateway } from '../support/use-gateway.ts';
import { userSession } from '../support/session-client.ts';
import type { Tenant } from '../support/tenant.ts';
import { jpeg, mmsConfig, uploadMedia } from '../mms/mms-fixture.ts';
import { recordingConfig } from '../calls/recording-fixture.ts';
import { fileRemovalsSince, lastQueuedFileRemoval } from '../support/test-data.ts';

const CALLER = '+79005550141';

/** Every file under `root`, but the partial uploads' directory. */
async function storedFiles(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return entries.filter((entry) => entry.isFile() && !entry.parentPath.includes('.partial')).map((entry) => entry.name);
}

describe('account deletion: its files go with its rows', () => {
  const fx = useGateway({ clock: new ManualClock(), config: () => ({ ...recordingConfig(() => fx)(), ...mmsConfig(() => fx)() }) });
  // The two stores' fresh directories (media and recordings), as the gateway was configured.
  const directories = () => [fx.gateway.config.mms.directory, fx.gateway.config.recordings.directory];
  // The removal queue is the database's, which other suites' gateways (with stores of their own)
  // may share: only the rows queued after `since` are this test's.
  const lastQueued = (): Promise<number> => lastQueuedFileRemoval(fx);
  const queuedSince = (since: number) => fileRemovalsSince(fx, since);

  /** An account with an upload, a received MMS part and a call recording on disk. */
  async function accountWithFiles(): Promise<Tenant> {
    const victim = await fx.newTenant();
    expect((await uploadMedia(fx, victim.key!, jpeg(10_000), 'image/jpeg')).status).to.equal(201);
    const phone = await fx.connectDevice({ apiUrl: fx.baseUrl }, victim);
    const settingsArrived = new Promise<void>((resolve) => phone.once('settings', () => resolve()));
    expect((await victim.api.patch(`/devices/${phone.id}/settings`, { forward_incoming_sms: true, record_calls: true })).status).to.equal(200);
    await settingsArrived;
    const received = await phone.receiveMms({ phone: CALLER, message: 'a picture', parts: [{ contentType: 'image/jpeg', bytes: jpeg(5_000, 2) }] });
    expect(received.uploads.map((upload) => upload.status)).to.deep.equal([201]);
    expect((await phone.makeCall({ direction: 'incoming', phone: CALLER, durationSeconds: 1 })).uploaded).to.equal(201);
    const [media, recordings] = await Promise.all(directories().map(storedFiles));
    expect(media).to.have.length.of.at.least(2);
    expect(recordings).to.have.length.of.at.least(1);
    return victim;
  }

  it('when an administrator deletes an account, then its media, received MMS parts and recordings are gone from the stores', async () => {
    const since = await lastQueued();
    const victim = await accountWithFiles();
    const admin = await userSession(fx.gateway, fx.tenant.accountId, 'owner', { isAdmin: true });

    const deleted = await admin.delete(`/accounts/${victim.accountId}?confirm=${victim.accountName}`);
    expect(deleted.status, JSON.stringify(deleted.body)).to.equal(204);

    expect(await Promise.all(directories().map(storedFiles))).to.deep.equal([[], []]);
    expect(await queuedSince(since)).to.deep.equal([]);
  });

  it('when the account\'s rows went but its files were not removed yet (the process stopped), then the next retention run removes them', async () => {
    const since = await lastQueued();
    const victim = await accountWithFiles();
    // What the deletion commits, without what follows the commit: the rows, through the cascades.
    await fx.gateway.services.accounts.remove(victim.accountId);
    expect((await queuedSince(since)).map((row: { store: string }) => row.store).sort()).to.deep.equal(['media', 'media', 'recordings']);

    await fx.gateway.services.retentionSweep.runOnce();

    expect(await Promise.all(directories().map(storedFiles))).to.deep.equal([[], []]);
    expect(await queuedSince(since)).to.deep.equal([]);
  });
});
