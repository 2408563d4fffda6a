// Every received MMS ends, and mms.received says how: complete, or incomplete with each missing
// part's reason. A part refused at upload (over MMS_MAX_MESSAGE_BYTES, bytes not the type
// reported) or reported as a type MMS media may not be is missing; once nothing else is awaited
// the MMS ends at once. Parts that never come are given up on by the sweep once the wait
// (INCOMING_MMS_PARTS_WAIT_MS) is over, moved past here by a manual clock.
import { expect } from 'chai';
import { ManualClock } from '../../src/common/clock.ts';
import { INCOMING_MMS_PARTS_WAIT_MS } from '../../src/modules/mms/service.ts';
import { useGateway } from '../support/use-gateway.ts';
import { createWebhook, verified, webhookConfig } from '../support/webhooks.ts';
import type { Received } from '../support/receiver.ts';
import { download, jpeg, mmsConfig, png } from './mms-fixture.ts';

const MESSAGE_MAX = 64 * 1024;

describe('incoming MMS: every one ends, saying what is missing', () => {
  const clock = new ManualClock();
  const fx = useGateway({ clock, config: mmsConfig(() => fx, { maxMessageBytes: MESSAGE_MAX }, { webhooks: webhookConfig() }) });

  /** A phone forwarding what it receives, and a webhook hearing mms.received; answers the MMS of one device id as announced. */
  async function setUp() {
    const receiver = await fx.receiver();
    const { secret } = await createWebhook(fx.tenant, receiver.url, ['mms.received']);
    const phone = await fx.connectDevice({ apiUrl: fx.baseUrl });
    expect((await fx.tenant.api.patch(`/devices/${phone.id}/settings`, { forward_incoming_sms: true })).status).to.equal(200);
    const announced = async (deviceMmsId: string) => {
      const ofIt = (request: Received) => request.json?.type === 'mms.received' && request.json.data.mms.device_mms_id === deviceMmsId;
      const [request] = await receiver.waitFor(1, ofIt);
      return verified(secret, request!).data.mms;
    };
    return { phone, announced };
  }

  it('when the only part\'s upload is over MMS_MAX_MESSAGE_BYTES, then the MMS ends at once as incomplete (too_large) and takes no later upload', async () => {
    const { phone, announced } = await setUp();
    const { id, uploads } = await phone.receiveMms({ phone: '+79990001122', message: 'big picture', parts: [{ id: 'img', contentType: 'image/jpeg', bytes: jpeg(MESSAGE_MAX + 1) }] });
    expect(uploads.map((upload) => upload.status)).to.deep.equal([413]);
    const mms = await announced(id);
    expect(mms).to.include({ status: 'incomplete', complete: false, message: 'big picture' });
    expect(mms.parts).to.deep.equal([
      { id: 'img', content_type: 'image/jpeg', size: MESSAGE_MAX + 1, uploaded: false, media_id: null, sha256: null, download_path: null, missing_reason: 'too_large' },
    ]);
    const read = await fx.tenant.api.get(`/mms/incoming/${mms.id}`);
    expect(read.body).to.deep.equal(mms);

    const late = await phone.receiveMms({ id, phone: '+79990001122', parts: [{ id: 'img', contentType: 'image/jpeg', bytes: jpeg(1000) }] });
    expect(late.uploads.map((upload) => [upload.status, (upload.body as any).error?.code])).to.deep.equal([[404, 'mms_part_not_expected']]);
  });

  it('when one part is uploaded, one is not the type reported and one is a type not kept, then it ends incomplete with the part it has; a SMIL layout is no part', async () => {
    const { phone, announced } = await setUp();
    const image = jpeg(5000);
    const { id } = await phone.receiveMms({
      phone: '+79990001122',
      parts: [
        { id: 'img', contentType: 'image/jpeg', bytes: image },
        { id: 'second', contentType: 'image/jpeg', bytes: png(800) },
        { id: 'doc', contentType: 'application/pdf', bytes: Buffer.from('%PDF-1.4') },
        { id: 'layout', contentType: 'application/smil', bytes: Buffer.from('<smil/>') },
      ],
      upload: false,
    });
    const listed = (await fx.tenant.api.get('/mms/incoming')).body.data[0];
    expect(listed.status).to.equal('receiving');
    expect(listed.parts.map((part: any) => [part.id, part.missing_reason])).to.deep.equal([
      ['img', null],
      ['second', null],
      ['doc', 'type_refused'],
    ]);

    const refused = await phone.receiveMms({ id, phone: '+79990001122', parts: [{ id: 'second', contentType: 'image/jpeg', bytes: png(800) }] });
    expect(refused.uploads.map((upload) => upload.status)).to.deep.equal([415]);
    expect((await fx.tenant.api.get(`/mms/incoming/${listed.id}`)).body.status, 'img is still awaited').to.equal('receiving');
    const stored = await phone.receiveMms({ id, phone: '+79990001122', parts: [{ id: 'img', contentType: 'image/jpeg', bytes: image }] });
    expect(stored.uploads.map((upload) => upload.status)).to.deep.equal([201]);

    const mms = await announced(id);
    expect(mms).to.include({ status: 'incomplete', complete: false });
    expect(mms.parts.map((part: any) => [part.id, part.uploaded, part.missing_reason])).to.deep.equal([
      ['img', true, null],
      ['second', false, 'type_refused'],
      ['doc', false, 'type_refused'],
    ]);
    const got = await download(fx.baseUrl + mms.parts[0].download_path, `Bearer ${fx.tenant.key}`);
    expect(got.bytes.equals(image)).to.equal(true);
  });

  it('when parts never come, then the sweep ends the MMS once the wait is over, as incomplete (not_uploaded), and not before', async () => {
    // The gateway's clock ten minutes behind the database's: the wait is measured by the gateway's
    // clock alone, whatever time the database keeps.
    clock.set(Date.now() - 10 * 60_000);
    const { phone, announced } = await setUp();
    const { id } = await phone.receiveMms({
      phone: '+79990001122',
      message: 'two pictures',
      parts: [
        { id: 'a', contentType: 'image/jpeg', bytes: jpeg(3000, 1) },
        { id: 'b', contentType: 'image/jpeg', bytes: jpeg(3000, 2) },
      ],
      upload: false,
    });
    const uploaded = await phone.receiveMms({ id, phone: '+79990001122', parts: [{ id: 'a', contentType: 'image/jpeg', bytes: jpeg(3000, 1) }] });
    expect(uploaded.uploads.map((upload) => upload.status)).to.deep.equal([201]);
    const sweep = fx.gateway.services.overdueMms;
    await sweep.runOnce();
    const waiting = (await fx.tenant.api.get('/mms/incoming')).body.data[0];
    expect(waiting.status, 'within the wait').to.equal('receiving');

    clock.advance(INCOMING_MMS_PARTS_WAIT_MS + 60_000);
    expect(await sweep.runOnce()).to.be.at.least(1);
    const mms = await announced(id);
    expect(mms).to.include({ id: waiting.id, status: 'incomplete', complete: false, message: 'two pictures' });
    expect(mms.parts.map((part: any) => [part.id, part.uploaded, part.missing_reason])).to.deep.equal([
      ['a', true, null],
      ['b', false, 'not_uploaded'],
    ]);
    expect(await sweep.runOnce(), 'ended once').to.equal(0);
    const late = await phone.receiveMms({ id, phone: '+79990001122', parts: [{ id: 'b', contentType: 'image/jpeg', bytes: jpeg(3000, 2) }] });
    expect(late.uploads.map((upload) => upload.status)).to.deep.equal([404]);
  });
});
