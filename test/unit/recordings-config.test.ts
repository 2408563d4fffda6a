import { expect } from 'chai';
import { loadConfig } from '../../src/config.ts';
import { configProblems } from '../support/config-problems.ts';

describe('recordings configuration', () => {
  it('defaults: 50 MB, files under DATA_DIR, kept forever', () => {
    expect(loadConfig({}).recordings).to.deep.equal({ maxBytes: 50 * 1024 * 1024, s3: undefined, directory: 'data/recordings', retentionDays: undefined });
    expect(loadConfig({ DATA_DIR: '/var/lib/sms-gateway' }).recordings.directory).to.equal('/var/lib/sms-gateway/recordings');
  });

  it('reads RECORDING_MAX_BYTES with units and RECORDINGS_RETENTION_DAYS (or keep)', () => {
    expect(loadConfig({ RECORDING_MAX_BYTES: '10mb' }).recordings.maxBytes).to.equal(10 * 1024 * 1024);
    expect(loadConfig({ RECORDING_MAX_BYTES: '1gb' }).recordings.maxBytes).to.equal(1024 ** 3);
    expect(loadConfig({ RECORDINGS_RETENTION_DAYS: '90' }).recordings.retentionDays).to.equal(90);
    expect(loadConfig({ RECORDINGS_RETENTION_DAYS: 'keep' }).recordings.retentionDays).to.equal(undefined);
    expect(configProblems({ RECORDING_MAX_BYTES: '5tb' })[0]).to.match(/^RECORDING_MAX_BYTES: must be a size/);
    expect(configProblems({ RECORDING_MAX_BYTES: '10' })[0]).to.match(/^RECORDING_MAX_BYTES: must be between 1kb and 4gb/);
    expect(configProblems({ RECORDINGS_RETENTION_DAYS: '0' })[0]).to.match(/^RECORDINGS_RETENTION_DAYS: must be a whole number from 1/);
  });

  it('parses RECORDINGS_S3_URL: endpoint, bucket, region, path style, credentials', () => {
    expect(loadConfig({ RECORDINGS_S3_URL: 's3://AKIA%2FX:se%2Fcret@minio.local:9000/call-audio?region=eu-west-1&path_style=true&tls=false' }).recordings.s3).to.deep.equal({
      endpoint: 'http://minio.local:9000',
      bucket: 'call-audio',
      region: 'eu-west-1',
      forcePathStyle: true,
      credentials: { accessKeyId: 'AKIA/X', secretAccessKey: 'se/cret' },
    });
    expect(loadConfig({ RECORDINGS_S3_URL: 's3://s3.amazonaws.com/my-bucket' }).recordings.s3).to.deep.equal({
      endpoint: 'https://s3.amazonaws.com',
      bucket: 'my-bucket',
      region: 'us-east-1',
      forcePathStyle: false,
      credentials: undefined,
    });
  });

  it('names what is wrong with RECORDINGS_S3_URL and never repeats the secret', () => {
    const bad = [
      'https://KEY:TOPSECRET@host/bucket',
      's3://KEY:TOPSECRET@host/',
      's3://KEY:TOPSECRET@host/Bad_Bucket',
      's3://KEY:TOPSECRET@host/bucket?pathstyle=1',
      's3://KEY:TOPSECRET@host/bucket?tls=no',
      's3://KEY@host/bucket',
      's3://KEY:TOPSECRET@host/bucket?region=../x',
    ];
    for (const url of bad) {
      const [problem] = configProblems({ RECORDINGS_S3_URL: url });
      expect(problem, url).to.match(/^RECORDINGS_S3_URL: /);
      expect(problem, url).not.to.include('TOPSECRET');
    }
  });
});
