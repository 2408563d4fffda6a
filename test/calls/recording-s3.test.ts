// Recordings through the whole gateway with RECORDINGS_S3_URL set, against s3rver (an
// S3-compatible server from npm, in-process): upload, ranged download, deletion.
import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// @ts-expect-error s3rver ships no types
import S3rver from 's3rver';
import { loadConfig } from '../../src/config.ts';
import { useGateway } from '../support/use-gateway.ts';
import { audioSample } from './recording-samples.ts';
import { RecordingPhone } from './recording-fixture.ts';
import { callIdOf, recordingRowsOf } from '../support/test-data.ts';

describe('calls: recordings in an S3 bucket', () => {
  let directory: string;
  let server: { run(): Promise<{ port: number }>; close(): Promise<void> };
  let url: string;
  // Declared before useGateway: the bucket is up when the gateway starts.
  before(async () => {
    directory = await mkdtemp(join(tmpdir(), 's3rver-'));
    server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory, configureBuckets: [{ name: 'call-audio' }] });
    const { port } = await server.run();
    url = `s3://S3RVER:S3RVER@127.0.0.1:${port}/call-audio?path_style=true&tls=false`;
  });
  after(async () => {
    await server?.close();
    await rm(directory, { recursive: true, force: true });
  });
  const fx = useGateway({ config: () => ({ recordings: loadConfig({ RECORDINGS_S3_URL: url }).recordings }) });

  it('stores the upload in the bucket, serves it with Range, and deletes it with its call', async () => {
    const phone = await RecordingPhone.connect(fx);
    const deviceCallId = await phone.reportCall();
    const audio = audioSample('amr', 20_000);
    const upload = await phone.upload(deviceCallId, audio);
    expect(upload.status, JSON.stringify(upload.body)).to.equal(201);
    expect(upload.body.content_type).to.equal('audio/amr');
    const id = await callIdOf(fx, phone.id, deviceCallId);
    const [{ storage_key: key }] = await recordingRowsOf(fx, id);

    // In the bucket under its key (s3rver keeps objects as files in its directory).
    const inBucket = await fetch(`${url.replace(/^s3:\/\/[^@]+@/, 'http://').replace(/\?.*$/, '')}/${key}`);
    expect(inBucket.status).to.equal(200);
    expect(Buffer.from(await inBucket.arrayBuffer()).equals(audio)).to.equal(true);

    const ranged = await fetch(`${fx.baseUrl}/api/ext/v1/calls/${id}/recording`, { headers: { authorization: `Bearer ${fx.tenant.key}`, range: 'bytes=100-199' } });
    expect(ranged.status).to.equal(206);
    expect(ranged.headers.get('content-range')).to.equal(`bytes 100-199/${audio.length}`);
    expect(Buffer.from(await ranged.arrayBuffer()).equals(audio.subarray(100, 200))).to.equal(true);

    expect((await fx.tenant.api.delete(`/calls/${id}`)).status).to.equal(204);
    const gone = await fetch(`${url.replace(/^s3:\/\/[^@]+@/, 'http://').replace(/\?.*$/, '')}/${key}`);
    expect(gone.status).to.equal(404);
  });
});
