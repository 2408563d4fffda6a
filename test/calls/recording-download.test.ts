// Recordings, the account's side (README, "Recordings"): GET /calls/{id}/recording streams the
// audio with its type and length and answers Range requests (first bytes, a middle slice, a
// suffix, 416 past the end), never another account's; call.recorded tells webhooks where to
// download it; deleting the call removes the file; RECORDINGS_RETENTION_DAYS removes old
// recordings.
import { expect } from 'chai';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { useGateway } from '../support/use-gateway.ts';
import { UNKNOWN_ID } from '../support/expectations.ts';
import { createWebhook, expectEnvelope, verified, webhookConfig } from '../support/webhooks.ts';
import { ApiClient } from '../support/tenant.ts';
import { audioSample } from './recording-samples.ts';
import { RecordingPhone, recordingConfig } from './recording-fixture.ts';
import { callIdOf, recordingRowsOf, stampRecording } from '../support/test-data.ts';

const RETENTION_DAYS = 30;

describe('calls: recording download, deletion and retention', () => {
  const fx = useGateway({ config: recordingConfig(() => fx, { retentionDays: RETENTION_DAYS }, { webhooks: webhookConfig() }) });

  /** A phone of the tenant that reported a call and uploaded `audio` for it; answers the call's id. */
  async function recordedCall(audio: Buffer, phone?: RecordingPhone): Promise<{ id: string; phone: RecordingPhone; upload: any }> {
    phone ??= await RecordingPhone.connect(fx);
    const deviceCallId = await phone.reportCall();
    const upload = await phone.upload(deviceCallId, audio);
    expect(upload.status, JSON.stringify(upload.body)).to.equal(201);
    const id = await callIdOf(fx, phone.id, deviceCallId);
    return { id, phone, upload: upload.body };
  }

  async function download(path: string, headers: Record<string, string> = {}, key = fx.tenant.key) {
    const response = await fetch(`${fx.baseUrl}/api/ext/v1${path}`, { headers: { authorization: `Bearer ${key}`, ...headers } });
    return { status: response.status, headers: response.headers, bytes: Buffer.from(await response.arrayBuffer()) };
  }

  const fileOf = async (callId: string) => {
    const [row] = await recordingRowsOf(fx, callId);
    return join(fx.gateway.config.recordings.directory, row.storage_key);
  };

  it('streams the whole recording with its Content-Type, Content-Length and Accept-Ranges', async () => {
    const audio = audioSample('mp3', 10_000);
    const { id, upload } = await recordedCall(audio);
    const whole = await download(upload.download_path.replace('/api/ext/v1', ''));
    expect(whole.status).to.equal(200);
    expect(whole.headers.get('content-type')).to.equal('audio/mpeg');
    expect(whole.headers.get('content-length')).to.equal(String(audio.length));
    expect(whole.headers.get('accept-ranges')).to.equal('bytes');
    expect(whole.bytes.equals(audio)).to.equal(true);
    expect((await download(`/calls/${id}/recording`)).bytes.equals(audio)).to.equal(true);
  });

  it('answers Range requests: the first bytes, a middle slice, a suffix, an open end; 416 past the end', async () => {
    const audio = audioSample('wav', 5000);
    const size = audio.length;
    const { id } = await recordedCall(audio);
    const path = `/calls/${id}/recording`;
    const cases: [string, number, number][] = [
      ['bytes=0-99', 0, 99],
      ['bytes=1000-1999', 1000, 1999],
      ['bytes=-500', size - 500, size - 1],
      ['bytes=4000-', 4000, size - 1],
      ['bytes=4500-999999', 4500, size - 1],
    ];
    for (const [range, start, end] of cases) {
      const reply = await download(path, { range });
      expect(reply.status, range).to.equal(206);
      expect(reply.headers.get('content-range'), range).to.equal(`bytes ${start}-${end}/${size}`);
      expect(reply.headers.get('content-length'), range).to.equal(String(end - start + 1));
      expect(reply.headers.get('content-type'), range).to.equal('audio/wav');
      expect(reply.bytes.equals(audio.subarray(start, end + 1)), range).to.equal(true);
    }
    for (const range of [`bytes=${size}-`, `bytes=${size + 10}-${size + 20}`, 'bytes=-0']) {
      const refused = await download(path, { range });
      expect(refused.status, range).to.equal(416);
      expect(refused.headers.get('content-range'), range).to.equal(`bytes */${size}`);
      expect(JSON.parse(refused.bytes.toString()).error.code).to.equal('range_not_satisfiable');
    }
    // A malformed or multi-range header is ignored: the whole recording.
    for (const range of ['bytes=0-1,5-6', 'pages=1-2', 'bytes=9-3']) {
      const whole = await download(path, { range });
      expect(whole.status, range).to.equal(200);
      expect(whole.bytes.length, range).to.equal(size);
    }
  });

  it('is 404 for another account\'s recording, a call without one, and an unknown call; 403 without calls:read', async () => {
    const { id } = await recordedCall(audioSample('amr'));
    const stranger = await fx.newTenant();
    const foreign = await download(`/calls/${id}/recording`, {}, stranger.key);
    expect(foreign.status).to.equal(404);
    expect(JSON.parse(foreign.bytes.toString()).error.code).to.equal('call_not_found');

    const phone = await RecordingPhone.connect(fx);
    const bare = await callIdOf(fx, phone.id, await phone.reportCall());
    expect(JSON.parse((await download(`/calls/${bare}/recording`)).bytes.toString()).error.code).to.equal('recording_not_found');
    expect((await download(`/calls/${UNKNOWN_ID}/recording`)).status).to.equal(404);
    expect((await download('/calls/not-a-uuid/recording')).status).to.equal(400);

    const smsOnly: ApiClient = await fx.keyWith(['sms:read']);
    const refused = await download(`/calls/${id}/recording`, {}, smsOnly.key!);
    expect(refused.status).to.equal(403);
  });

  it('raises call.recorded with the metadata and the download path, never the audio', async () => {
    const receiver = await fx.receiver();
    const { secret } = await createWebhook(fx.tenant, receiver.url, ['call.recorded']);
    const audio = audioSample('m4a', 3000);
    const { id, upload } = await recordedCall(audio);
    const [request] = await receiver.waitFor(1);
    const event = verified(secret, request!);
    expectEnvelope(event, 'call.recorded', fx.tenant.accountId);
    expect(event.data.download_path).to.equal(`/api/ext/v1/calls/${id}/recording`);
    expect(event.data.call.id).to.equal(id);
    expect(event.data.call.recording).to.deep.equal(upload);
    expect(request!.body).not.to.include(audio.subarray(100, 200).toString('base64'));
  });

  it('removes the file when the call is deleted', async () => {
    const { id } = await recordedCall(audioSample('ogg-opus'));
    const file = await fileOf(id);
    expect((await stat(file)).isFile()).to.equal(true);
    expect((await fx.tenant.api.delete(`/calls/${id}`)).status).to.equal(204);
    expect(await stat(file).then(() => 'still there', (error: NodeJS.ErrnoException) => error.code)).to.equal('ENOENT');
    expect((await download(`/calls/${id}/recording`)).status).to.equal(404);
  });

  it('retention removes the recordings (rows and files) older than RECORDINGS_RETENTION_DAYS and keeps the calls', async () => {
    const phone = await RecordingPhone.connect(fx);
    const old = await recordedCall(audioSample('wav'), phone);
    const recent = await recordedCall(audioSample('wav', 3000), phone);
    const oldFile = await fileOf(old.id);
    const recentFile = await fileOf(recent.id);
    const daysAgo = (days: number) => new Date(Date.now() - days * 24 * 3600 * 1000);
    await stampRecording(fx, old.id, daysAgo(RETENTION_DAYS + 1));
    await stampRecording(fx, recent.id, daysAgo(RETENTION_DAYS - 1));

    // At least the old one (the database may hold other old rows from other suites' runs).
    expect(await fx.gateway.services.recordings.expire()).to.be.at.least(1);
    expect(await stat(oldFile).then(() => 'still there', (error: NodeJS.ErrnoException) => error.code)).to.equal('ENOENT');
    expect((await stat(recentFile)).isFile()).to.equal(true);
    const oldCall = await fx.tenant.api.get(`/calls/${old.id}`);
    expect(oldCall.status).to.equal(200);
    expect(oldCall.body.recording).to.equal(null);
    expect((await fx.tenant.api.get(`/calls/${recent.id}`)).body.recording).to.not.equal(null);
  });
});
