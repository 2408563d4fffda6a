// Recordings, the phone's side (docs/devices.md, rule 6):
// PUT /api/device/v1/calls/{call id}/recording with the device's id and token. Refused while
// record_calls is off, for a call the phone never reported, for bytes that are not audio, past
// RECORDING_MAX_BYTES (without the gateway holding the body), and nothing is left of an upload
// cut short; a repeat answers what is stored.
import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { useGateway } from '../support/use-gateway.ts';
import { expectIsoTimestamp, UNKNOWN_ID } from '../support/expectations.ts';
import { eventually } from '../support/eventually.ts';
import { audioSample, filler, SERVED_TYPE, wav, type SampleType } from './recording-samples.ts';
import { partialFiles, put, RecordingPhone, recordingConfig, storedFiles, streamedWav } from './recording-fixture.ts';
import { callIdOf as storedCallIdOf, recordingRowsOf } from '../support/test-data.ts';

const MAX_BYTES = 1024 * 1024;
const RECORDING_KEYS = ['size_bytes', 'content_type', 'duration_seconds', 'sha256', 'created_at', 'download_path'];
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

describe('calls: recording upload', () => {
  const fx = useGateway({ config: recordingConfig(() => fx, { maxBytes: MAX_BYTES }) });
  const directory = () => fx.gateway.config.recordings.directory;
  // The store's directory lives as long as the gateway: each test looks at the files it made.
  let earlier: Set<string>;
  beforeEach(async () => {
    earlier = new Set(await storedFiles(directory()));
  });
  const newFiles = async () => (await storedFiles(directory())).filter((file) => !earlier.has(file));
  const recordingRows = (callIds: string[]) => recordingRowsOf(fx, callIds);
  const callIdOf = (phone: RecordingPhone, deviceCallId: string): Promise<string> => storedCallIdOf(fx, phone.id, deviceCallId);

  it('is refused with 403 while record_calls is off, and stored once PATCH settings turns it on', async () => {
    const phone = await RecordingPhone.connect(fx, { recordCalls: false });
    const callId = await phone.reportCall();
    const audio = wav(32_000);

    const refused = await phone.upload(callId, audio);
    expect(refused.status).to.equal(403);
    expect(refused.body.error.code).to.equal('recording_disabled');
    expect(await newFiles()).to.deep.equal([]);

    await phone.setRecordCalls(true);
    const stored = await phone.upload(callId, audio);
    expect(stored.status, JSON.stringify(stored.body)).to.equal(201);
    expect(Object.keys(stored.body).sort()).to.deep.equal([...RECORDING_KEYS].sort());
    const id = await callIdOf(phone, callId);
    expect(stored.body).to.include({ size_bytes: audio.length, content_type: 'audio/wav', duration_seconds: 2, sha256: sha256(audio), download_path: `/api/ext/v1/calls/${id}/recording` });
    expectIsoTimestamp(stored.body.created_at, 'created_at');

    // On disk under a two-level sharded path, the bytes exactly; the call view shows it too.
    const [file, ...more] = await newFiles();
    expect(more).to.deep.equal([]);
    expect(file).to.match(/\/[0-9a-f]{2}\/[0-9a-f]{2}\/[0-9a-f-]{36}$/);
    expect((await readFile(file!)).equals(audio)).to.equal(true);
    const view = await fx.tenant.api.get(`/calls/${id}`);
    expect(view.body.recording).to.deep.equal(stored.body);
  });

  for (const type of Object.keys(SERVED_TYPE) as SampleType[]) {
    it(`takes ${type}, typed ${SERVED_TYPE[type]} from its bytes whatever the header said`, async () => {
      const phone = await RecordingPhone.connect(fx);
      const callId = await phone.reportCall();
      const audio = audioSample(type, 6000);
      const reply = await phone.upload(callId, audio, { 'content-type': 'application/octet-stream' });
      expect(reply.status, JSON.stringify(reply.body)).to.equal(201);
      expect(reply.body).to.include({ content_type: SERVED_TYPE[type], size_bytes: audio.length, sha256: sha256(audio) });
    });
  }

  it('refuses bytes that are not audio with 415, even with an audio Content-Type, and keeps nothing', async () => {
    const phone = await RecordingPhone.connect(fx);
    const callId = await phone.reportCall();
    for (const [contentType, bytes] of [
      ['audio/wav', Buffer.from('this is text pretending to be a WAV file')],
      ['audio/mpeg', Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), filler(10_000)])],
      ['audio/amr', filler(50_000)],
      ['audio/ogg', Buffer.alloc(0)],
    ] as const) {
      const reply = await phone.upload(callId, bytes, { 'content-type': contentType });
      expect(reply.status, contentType).to.equal(415);
      expect(reply.body.error.code).to.equal('not_audio');
    }
    expect(await recordingRows([await callIdOf(phone, callId)])).to.deep.equal([]);
    expect(await newFiles()).to.deep.equal([]);
  });

  it('answers 401 to wrong, missing or another phone\'s credentials, and 404 for a call the phone did not report', async () => {
    const phone = await RecordingPhone.connect(fx);
    const other = await RecordingPhone.connect(fx);
    const callId = await phone.reportCall();
    const audio = wav(1000);
    const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
    for (const authorization of [basic(phone.id, 'wrong-token'), basic(UNKNOWN_ID, phone.token), basic('not-a-uuid', phone.token), basic(phone.id, other.token), 'Bearer x', '']) {
      const reply = await put(fx.baseUrl, callId, audio, authorization ? { authorization } : {});
      expect(reply.status, authorization).to.equal(401);
      expect(reply.body.error.code).to.equal('invalid_device_credentials');
      expect(reply.headers['www-authenticate']).to.match(/^Basic /);
    }
    // Another phone (even of the same account) cannot upload to this phone's call: it is not its call.
    const notItsCall = await other.upload(callId, audio);
    expect(notItsCall.status).to.equal(404);
    expect(notItsCall.body.error.code).to.equal('call_not_found');
    expect((await phone.upload('never-reported', audio)).status).to.equal(404);
    expect((await phone.upload('x'.repeat(65), audio)).body.error.code).to.equal('validation_failed');
  });

  it('answers a repeated upload with 200 and the stored recording, replacing nothing', async () => {
    const phone = await RecordingPhone.connect(fx);
    const callId = await phone.reportCall();
    const first = await phone.upload(callId, wav(8000));
    expect(first.status).to.equal(201);
    const again = await phone.upload(callId, audioSample('mp3', 20_000));
    expect(again.status).to.equal(200);
    expect(again.body).to.deep.equal(first.body);
    expect(await newFiles()).to.have.length(1);
    expect(await recordingRows([await callIdOf(phone, callId)])).to.have.length(1);
  });

  it('refuses a 200 MB body with 413 from its Content-Length, and one streamed without a length at the limit, memory flat', async function () {
    this.timeout(60_000);
    const phone = await RecordingPhone.connect(fx);
    const callId = await phone.reportCall();
    const total = 200 * 1024 * 1024;
    global.gc?.();
    const before = process.memoryUsage().rss;

    const declared = await phone.upload(callId, streamedWav(total), { 'content-length': String(total) });
    expect(declared.status).to.equal(413);
    expect(declared.body.error.code).to.equal('payload_too_large');
    expect(declared.headers.connection).to.equal('close');

    let sent = 0;
    const counted = async function* () {
      for await (const chunk of streamedWav(total)) {
        sent += chunk.length;
        yield chunk;
      }
    };
    const streamed = await phone.upload(callId, counted());
    expect(streamed.status).to.equal(413);
    expect(streamed.body.error.message).to.include(String(MAX_BYTES));
    // The gateway stopped reading near the limit: the client could not push 200 MB into it.
    expect(sent).to.be.below(50 * 1024 * 1024);
    const grown = process.memoryUsage().rss - before;
    expect(grown, `RSS grew by ${Math.round(grown / 1e6)} MB`).to.be.below(60 * 1024 * 1024);

    expect(await recordingRows([await callIdOf(phone, callId)])).to.deep.equal([]);
    await eventually('the partial file removed', async () => ((await partialFiles(directory())).length === 0 ? true : undefined));
    expect(await newFiles()).to.deep.equal([]);
  });

  it('keeps no file and no row of an upload whose connection is cut mid-body; the phone can upload again', async () => {
    const phone = await RecordingPhone.connect(fx);
    const callId = await phone.reportCall();
    const audio = wav(600_000);
    const url = new URL(`/api/device/v1/calls/${callId}/recording`, fx.baseUrl);
    const request = httpRequest(url, { method: 'PUT', headers: { authorization: phone.authorization, 'content-length': String(audio.length) } });
    const closed = new Promise((resolve) => request.on('close', resolve));
    request.on('error', () => undefined);
    // Half the body, then the connection goes (a phone that lost its network).
    request.write(audio.subarray(0, 300_000), () => request.destroy());
    await closed;

    await eventually('the partial file removed', async () => ((await partialFiles(directory())).length === 0 ? true : undefined));
    expect(await newFiles()).to.deep.equal([]);
    expect(await recordingRows([await callIdOf(phone, callId)])).to.deep.equal([]);
    const retried = await phone.upload(callId, audio);
    expect(retried.status).to.equal(201);
    expect(retried.body.sha256).to.equal(sha256(audio));
  });
});
