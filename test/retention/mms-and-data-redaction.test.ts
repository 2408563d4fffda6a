// Retention reaches every kind of message, not only plain SMS: once an account's keep_text_days
// have passed (by the gateway's clock), a sent MMS has no subject and its recipients are hashes,
// a data SMS has no payload, a received MMS has no text or subject, its sender and recipients are
// hashes, and the media of both (uploaded and received parts) are gone, rows and files, through
// the API as in the store directory. A real phone (the device agent) sends and receives them.
import { expect } from 'chai';
import { createHmac } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { ManualClock } from '../../src/common/clock.ts';
import type { SimulatedDevice } from '../../src/simulator/device.ts';
import { useGateway } from '../support/use-gateway.ts';
import { liftLimits, nextEvent } from '../support/devices.ts';
import { download, jpeg, mmsConfig, uploadMedia } from '../mms/mms-fixture.ts';
import { smsRow, recipientSalt, mmsRowsOf } from '../support/test-data.ts';

const DAY = 24 * 3600 * 1000;
const FRIEND = '+79005550131';
const OTHER_FRIEND = '+79005550132';
const SENDER = '+79005550133';

/** Every file under `root`, but the partial uploads' directory. */
async function storedFiles(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return entries.filter((entry) => entry.isFile() && !join(entry.parentPath, entry.name).includes('.partial')).map((entry) => entry.name);
}

describe('retention: MMS and data SMS', () => {
  const clock = new ManualClock();
  const fx = useGateway({ clock, config: mmsConfig(() => fx) });
  // The media store's directory, a fresh one for these tests (mmsConfig).
  const mediaRoot = () => fx.gateway.config.mms.directory;

  async function phone(): Promise<SimulatedDevice> {
    const device = await fx.connectDevice({ apiUrl: fx.baseUrl });
    await liftLimits(fx.gateway, fx.tenant, device.id);
    expect((await fx.tenant.api.patch(`/devices/${device.id}/settings`, { forward_incoming_sms: true })).status).to.equal(200);
    return device;
  }

  async function sent(device: SimulatedDevice, path: string, body: object): Promise<string> {
    const reported = nextEvent(device, 'report', (_id, status) => status === 'sent', 10_000);
    const created = await fx.tenant.api.post(path, { ...body, device_id: device.id });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    await reported;
    return created.body.id as string;
  }

  async function keepSevenDaysThenSweep(): Promise<{ hash: (phone: string) => string }> {
    expect((await fx.tenant.api.request('PUT', '/account/retention', { keep_text_days: 7, hash_recipients: true })).status).to.equal(200);
    const salt = await recipientSalt(fx, fx.tenant.accountId);
    clock.advance(8 * DAY);
    await fx.gateway.services.retentionSweep.runOnce();
    return { hash: (phone) => `hmac:${createHmac('sha256', salt).update(phone).digest('hex')}` };
  }

  it('when a sent MMS and a data SMS are older than the account keeps text, then the subject, recipients, payload and media are gone', async () => {
    const device = await phone();
    const upload = await uploadMedia(fx, fx.tenant.key!, jpeg(20_000), 'image/jpeg');
    expect(upload.status).to.equal(201);
    const media = upload.body as { id: string; download_path: string };
    const mmsId = await sent(device, '/mms', { phones: [FRIEND, OTHER_FRIEND], subject: 'secret subject', message: 'secret text', media_ids: [media.id] });
    const dataId = await sent(device, '/sms/data', { phone: FRIEND, data: Buffer.from('secret payload').toString('base64'), port: 2948 });
    expect(await storedFiles(mediaRoot())).not.to.be.empty;

    const { hash } = await keepSevenDaysThenSweep();

    const mms = (await fx.tenant.api.get(`/mms/${mmsId}`)).body;
    expect(mms).to.include({ message: '', subject: null, phone: hash(FRIEND) });
    expect(mms.recipients).to.deep.equal([hash(FRIEND), hash(OTHER_FRIEND)]);
    const data = (await fx.tenant.api.get(`/sms/${dataId}`)).body;
    expect(data).to.include({ kind: 'data', data: '', phone: hash(FRIEND) });
    expect((await download(fx.baseUrl + media.download_path, `Bearer ${fx.tenant.key}`)).status).to.equal(404);
    const rows = await mmsRowsOf(fx, mmsId);
    expect(JSON.stringify(rows)).not.to.include('secret');
    expect(JSON.stringify(await smsRow(fx, dataId))).not.to.include(Buffer.from('secret payload').toString('base64'));
    expect(await storedFiles(mediaRoot())).to.deep.equal([]);
  });

  it('when a received MMS is older than the account keeps text, then its text, subject, numbers and parts are gone, from the store too', async () => {
    const device = await phone();
    const image = jpeg(30_000, 3);
    const received = await device.receiveMms({ phone: SENDER, recipients: [FRIEND], subject: 'secret subject', message: 'secret text', parts: [{ id: 'img', contentType: 'image/jpeg', bytes: image }] });
    expect(received.uploads.map((upload) => upload.status)).to.deep.equal([201]);
    const [before] = (await fx.tenant.api.get('/mms/incoming')).body.data;
    expect(before).to.include({ phone: SENDER, subject: 'secret subject', message: 'secret text', complete: true });
    expect(await storedFiles(mediaRoot())).not.to.be.empty;

    const { hash } = await keepSevenDaysThenSweep();

    const after = (await fx.tenant.api.get(`/mms/incoming/${before.id}`)).body;
    expect(after).to.include({ phone: hash(SENDER), subject: null, message: null });
    expect(after.recipients).to.deep.equal([hash(FRIEND)]);
    expect(JSON.stringify(await fx.tenant.api.get('/mms/incoming'))).not.to.include('secret');
    expect((await download(fx.baseUrl + before.parts[0].download_path, `Bearer ${fx.tenant.key}`)).status).to.equal(404);
    expect(await storedFiles(mediaRoot())).to.deep.equal([]);
  });
});
