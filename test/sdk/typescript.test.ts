// The TypeScript SDK (sdk/typescript) against a real gateway: every method over real HTTP, paging
// across pages, a webhook delivery the gateway signed verified by the SDK's helper (and refused once
// altered), errors as typed exceptions, the live event stream and the end-to-end format.
import { spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { expect } from 'chai';
import { Webhook } from 'standardwebhooks';
import {
  BadRequestError,
  Client,
  ConflictError,
  ForbiddenError,
  GatewayError,
  RateLimitedError,
  NotFoundError,
  UnauthorizedError,
  UnavailableError,
  UnprocessableError,
  WebhookVerificationError,
  decrypt,
  encrypt,
  signWebhook,
  verifyWebhook,
} from '../../sdk/typescript/src/index.ts';
import { encrypt as agentEncrypt } from '../../src/common/end-to-end.ts';
import { useGateway } from '../support/use-gateway.ts';
import { createWebhook, webhookConfig } from '../support/webhooks.ts';

const PHONE = '+79161234567';

describe('TypeScript SDK against a real gateway', () => {
  const fx = useGateway({ config: () => ({ webhooks: webhookConfig() }) });
  let client: Client;

  beforeEach(() => {
    client = new Client({ baseUrl: fx.baseUrl, apiKey: fx.tenant.key });
  });

  it('sends an SMS, reads it with its history, and an idempotency key sends it once', async () => {
    const sms = await client.sendSms({ phone: PHONE, message: 'hello from the SDK', priority: 3 });
    expect(sms).to.include({ phone: PHONE, message: 'hello from the SDK', status: 'pending', priority: 3 });
    const read = await client.getSms(sms.id);
    expect(read.id).to.equal(sms.id);
    expect(read.history.map((entry) => entry.status)).to.deep.equal(['pending']);

    const key = randomUUID();
    const first = await client.sendSms({ phone: PHONE, message: 'once' }, { idempotencyKey: key });
    const again = await client.sendSms({ phone: PHONE, message: 'once' }, { idempotencyKey: key });
    expect(again.id).to.equal(first.id);
    const reused = await client.sendSms({ phone: PHONE, message: 'another text' }, { idempotencyKey: key }).catch((error: unknown) => error);
    expect(reused).to.be.instanceOf(UnprocessableError);
    expect(reused).to.include({ status: 422, code: 'idempotency_key_reused', kind: 'unprocessable' });
  });

  it('lists one page at a time and iterates across every page', async () => {
    const sent: string[] = [];
    for (let n = 0; n < 5; n++) sent.push((await client.sendSms({ phone: PHONE, message: `page ${n}` })).id);
    const first = await client.listSms({ limit: 2 });
    expect(first.data).to.have.length(2);
    expect(first.next_cursor).to.be.a('string');
    const second = await client.listSms({ limit: 2, cursor: first.next_cursor! });
    // No SMS on both pages (not.include.members would pass with one page overlapping the other by one).
    const onFirst = new Set(first.data.map((sms) => sms.id));
    expect(second.data.filter((sms) => onFirst.has(sms.id))).to.deep.equal([]);
    const every: string[] = [];
    for await (const sms of client.allSms({ limit: 2 })) every.push(sms.id);
    // Newest first: the reverse of the order sent.
    expect(every).to.deep.equal([...sent].reverse());
  });

  it('cancels an SMS no phone took, and a taken one is a ConflictError', async () => {
    const waiting = await client.sendSms({ phone: PHONE, message: 'cancel me' });
    const cancelled = await client.cancelSms(waiting.id);
    expect(cancelled).to.include({ id: waiting.id, status: 'failed_send', reason: 'cancelled' });

    const phone = await fx.taskPhone();
    const taken = await client.sendSms({ phone: PHONE, message: 'taken', device_id: phone.id });
    await phone.until(1);
    await phone.report(taken.id, 'processing');
    const refused = await client.cancelSms(taken.id).catch((error: unknown) => error);
    expect(refused).to.be.instanceOf(ConflictError);
    expect(refused).to.include({ status: 409, code: 'already_taken' });
  });

  it('sends in bulk from JSON and from CSV; a bad message is a BadRequestError naming it', async () => {
    const created = await client.sendBulk([
      { phone: PHONE, message: 'bulk a' },
      { phone: '+79161234568', message: 'bulk b' },
    ]);
    expect(created.data.map((sms) => sms.message)).to.deep.equal(['bulk a', 'bulk b']);
    const fromCsv = await client.sendBulk('phone,message\n+79161234569,csv c\n+79161234570,csv d\n');
    expect(fromCsv.data.map((sms) => sms.phone)).to.deep.equal(['+79161234569', '+79161234570']);
    const preview = await client.sendBulk([{ phone: PHONE, message: 'dry' }], { dryRun: true });
    expect(preview.data[0]).to.include({ index: 0, valid: true });

    const refused = await client.sendBulk([{ phone: PHONE, message: 'fine' }, { phone: 'nope', message: 'bad' }]).catch((error: unknown) => error);
    expect(refused).to.be.instanceOf(BadRequestError);
    const error = refused as BadRequestError;
    expect(error.status).to.equal(400);
    expect(error.details.some((detail) => String(detail.field).includes('1')), JSON.stringify(error.details)).to.equal(true);
    expect((await client.listSms()).data).to.have.length(4);
  });

  it('lists devices and incoming SMS', async () => {
    const phone = await fx.taskPhone();
    const devices = await client.listDevices();
    expect(devices.data.map((device) => device.id)).to.deep.equal([phone.id]);
    expect((await client.listIncoming({ limit: 5 })).data).to.deep.equal([]);
  });

  it('manages webhooks, API keys, devices and the SMPP and Twilio credentials through typed helpers', async () => {
    const receiver = await fx.receiver();
    const hook = await client.webhooks.create({ url: receiver.url, events: ['sms.received'], description: 'from the SDK' });
    expect(hook.secret).to.match(/^whsec_/);
    expect((await client.webhooks.list()).data.map((webhook) => webhook.id)).to.deep.equal([hook.webhook.id]);
    expect(await client.webhooks.update(hook.webhook.id, { enabled: false })).to.include({ id: hook.webhook.id, enabled: false });
    expect((await client.webhooks.rotateSecret(hook.webhook.id)).secret).to.match(/^whsec_/).and.not.equal(hook.secret);
    await client.webhooks.delete(hook.webhook.id);
    expect(await client.webhooks.get(hook.webhook.id).catch((error: unknown) => error)).to.be.instanceOf(NotFoundError);

    const created = await client.keys.create({ name: 'reader', permissions: ['sms:read'] });
    const reader = new Client({ baseUrl: fx.baseUrl, apiKey: created.key });
    expect((await reader.listSms()).data).to.be.an('array');
    expect((await client.keys.list({ revoked: false })).data.map((key) => key.id)).to.include(created.id);
    expect((await client.keys.revoke(created.id)).revoked_at).to.be.a('string');
    expect(await reader.listSms().catch((error: unknown) => error)).to.be.instanceOf(UnauthorizedError);
    expect((await client.keys.get(created.id)).revoked_at).to.be.a('string');

    const registered = await client.devices.register({ name: 'SDK phone' });
    expect(registered.credentials).to.be.an('object');
    expect((await client.devices.list()).data.map((device) => device.id)).to.deep.equal([registered.device.id]);
    expect(await client.devices.update(registered.device.id, { name_custom: 'Renamed' })).to.include({ name_custom: 'Renamed' });
    expect((await client.devices.get(registered.device.id)).id).to.equal(registered.device.id);
    await client.devices.delete(registered.device.id);
    expect(await client.devices.get(registered.device.id).catch((error: unknown) => error)).to.be.instanceOf(NotFoundError);

    const smpp = await client.smppCredentials.create({ name: 'ESME' });
    expect(smpp.password).to.have.length(8);
    expect((await client.smppCredentials.list()).data.map((credential) => credential.id)).to.deep.equal([smpp.id]);
    expect(await client.smppCredentials.update(smpp.id, { name: 'ESME renamed' })).to.include({ id: smpp.id, name: 'ESME renamed' });
    expect((await client.smppCredentials.revoke(smpp.id)).revoked_at).to.be.a('string');

    const twilio = await client.twilioCredentials.create({ friendly_name: 'helper library' });
    expect(twilio.account_sid).to.match(/^AC/);
    const rotated = await client.twilioCredentials.rotate(twilio.account_sid);
    expect(rotated.auth_token).to.be.a('string').and.not.equal(twilio.auth_token);
    expect((await client.twilioCredentials.list()).data.map((credential) => credential.account_sid)).to.deep.equal([twilio.account_sid]);
    await client.twilioCredentials.delete(twilio.account_sid);
    expect((await client.twilioCredentials.list()).data).to.deep.equal([]);
  });

  it('verifies a delivery the gateway signed, and refuses it altered or under another secret', async () => {
    const receiver = await fx.receiver();
    const { secret } = await createWebhook(fx.tenant, receiver.url, ['sms.status_changed']);
    const phone = await fx.taskPhone();
    const sms = await client.sendSms({ phone: PHONE, message: 'signed', device_id: phone.id });
    await phone.until(1);
    await phone.sendAll();
    const [delivery] = await receiver.waitFor(1);

    const event = verifyWebhook<{ sms: { id: string } }>(secret, delivery!.headers, delivery!.body);
    expect(event.type).to.equal('sms.status_changed');
    expect(event.data.sms.id).to.equal(sms.id);
    expect(event.account_id).to.equal(fx.tenant.accountId);
    // The same answer as the standardwebhooks package.
    expect(new Webhook(secret).verify(delivery!.body, delivery!.headers as Record<string, string>)).to.deep.equal(event);
    // Headers as fetch carries them work as well.
    expect(verifyWebhook(secret, new Headers(delivery!.headers as Record<string, string>), Buffer.from(delivery!.body)).id).to.equal(event.id);

    const tampered = delivery!.body.replace(sms.id, randomUUID());
    expect(() => verifyWebhook(secret, delivery!.headers, tampered)).to.throw(WebhookVerificationError);
    const stranger = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    expect(() => verifyWebhook(stranger, delivery!.headers, delivery!.body)).to.throw(WebhookVerificationError);
    const later = (Number(delivery!.headers['webhook-timestamp']) + 3600) * 1000;
    expect(() => verifyWebhook(secret, delivery!.headers, delivery!.body, { now: later })).to.throw(WebhookVerificationError, /too far/);
  });

  it('signs as the standardwebhooks package verifies', () => {
    const secret = `whsec_${Buffer.alloc(32, 3).toString('base64')}`;
    const body = '{"id":"x"}';
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = { 'webhook-id': 'msg_1', 'webhook-timestamp': String(timestamp), 'webhook-signature': signWebhook(secret, 'msg_1', timestamp, body) };
    expect(new Webhook(secret).verify(body, headers)).to.deep.equal({ id: 'x' });
  });

  it('maps errors to typed exceptions: 404, 401, 403, 400 and 503', async () => {
    const missing = await client.getSms(randomUUID()).catch((error: unknown) => error);
    expect(missing).to.be.instanceOf(NotFoundError).and.instanceOf(GatewayError);
    expect(missing).to.include({ status: 404, code: 'sms_not_found', kind: 'not_found' });

    const stranger = new Client({ baseUrl: fx.baseUrl, apiKey: 'not-a-key' });
    const unauthorized = await stranger.listSms().catch((error: unknown) => error);
    expect(unauthorized).to.be.instanceOf(UnauthorizedError);
    expect(unauthorized).to.include({ status: 401 });

    const reader = await fx.keyWith(['sms:read']);
    const readOnly = new Client({ baseUrl: `${fx.baseUrl}/api/ext/v1/`, apiKey: reader.key! });
    const forbidden = await readOnly.sendSms({ phone: PHONE, message: 'no' }).catch((error: unknown) => error);
    expect(forbidden).to.be.instanceOf(ForbiddenError);
    expect(forbidden).to.include({ status: 403 });

    const invalid = await client.sendSms({ phone: PHONE, message: '' }).catch((error: unknown) => error);
    expect(invalid).to.be.instanceOf(BadRequestError);
    expect(invalid).to.include({ status: 400, code: 'validation_failed' });
    expect((invalid as GatewayError).details).to.not.be.empty;

    const unavailable = await client.sendSms({ phone: PHONE, message: 'now or never', no_store: true }).catch((error: unknown) => error);
    expect(unavailable).to.be.instanceOf(UnavailableError);
    expect(unavailable).to.include({ status: 503, code: 'no_device_available' });
  });

  it('maps a 429 to RateLimitedError with the seconds of Retry-After', async () => {
    // One well-formed key nobody holds, tried again and again: the gateway throttles that key.
    const guessed = new Client({ baseUrl: fx.baseUrl, apiKey: `sgw_${randomBytes(5).toString('hex')}_${randomBytes(32).toString('base64url')}` });
    let error: unknown;
    for (let attempt = 0; attempt < 10 && !(error instanceof RateLimitedError); attempt++) error = await guessed.listSms().catch((failure: unknown) => failure);
    expect(error).to.be.instanceOf(RateLimitedError);
    expect(error).to.include({ status: 429, code: 'too_many_auth_failures', kind: 'rate_limited' });
    expect((error as RateLimitedError).retryAfterSeconds).to.be.a('number').above(0);
  });

  it('streams live events from the moment it resolves, until closed', async () => {
    const phone = await fx.taskPhone();
    const stream = await client.events();
    const sms = await client.sendSms({ phone: PHONE, message: 'live', device_id: phone.id });
    await phone.until(1);
    await phone.sendAll();
    const statuses: unknown[] = [];
    for await (const event of stream) {
      if (event.event !== 'sms.status' || event.data.id !== sms.id) continue;
      statuses.push(event.data.internal_status);
      if (event.data.internal_status === 'sent') break;
    }
    // Every step after the stream opened, in order (pending first: the SMS was stored after it).
    expect(statuses).to.deep.equal(['pending', 'processing', 'sent']);
    stream.close();
  });

  it('decrypts the documented test vector, encrypts as the phones do, and sends an encrypted SMS', async () => {
    const vector =
      '$aes-256-gcm/pbkdf2-sha256$i=100000$AAECAwQFBgcICQoLDA0ODw==$oKGio6Slpqeoqaqr$YTYXOSpmmUX44+diy7tD8B9iwG3DpzAeazmOW8hy8NP6JrZ/v8ZGZ49QTQ==';
    expect(await decrypt(vector, 'correct horse battery staple')).to.equal('Hello from the gateway 👋');
    const salt = Buffer.from('000102030405060708090a0b0c0d0e0f', 'hex');
    const iv = Buffer.from('a0a1a2a3a4a5a6a7a8a9aaab', 'hex');
    const fixed = { salt, iv, iterations: 100_000 };
    expect(await encrypt('Hello from the gateway 👋', 'correct horse battery staple', fixed)).to.equal(vector);
    expect(await encrypt('другой текст', 'pass', fixed)).to.equal(await agentEncrypt('другой текст', 'pass', fixed));

    const sealed = await client.sendEncryptedSms({ phone: PHONE, message: 'only the phone reads this' }, 'our passphrase');
    expect(sealed.is_encrypted).to.equal(true);
    expect(sealed.message).to.not.include('only the phone');
    expect(await decrypt(sealed.phone, 'our passphrase')).to.equal(PHONE);
    expect(await decrypt((await client.getSms(sealed.id)).message, 'our passphrase')).to.equal('only the phone reads this');
  });

  it("runs the README's examples as written (all but the servers and the endless stream)", async function () {
    this.timeout(60_000);
    const sdk = resolve('sdk/typescript/src/index.ts');
    const blocks = [...readFileSync('sdk/typescript/README.md', 'utf8').matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1]!);
    const runnable = blocks.filter((block) => !block.includes('createServer') && !block.includes('client.events()'));
    expect(runnable.length).to.be.at.least(4);
    // The project README's example too, its gateway address the test's (its client is named alike: a block of its own scope).
    const sdks = readFileSync('README.md', 'utf8').split('## SDKs')[1]!.split('\n## ')[0]!;
    const projectExample = /```ts\n([\s\S]*?)```/.exec(sdks)![1]!.replaceAll('http://localhost:3000', fx.baseUrl);
    runnable.push(`await (async () => {\n${projectExample.replace(/^import .*$/gm, '')}\n})();`);
    runnable.unshift(/^import .*$/m.exec(projectExample)![0]);
    const directory = mkdtempSync(join(tmpdir(), 'sdk-readme-'));
    try {
      const file = join(directory, 'readme.mts');
      writeFileSync(file, runnable.join('\n').replaceAll("'@sms-gateway/sdk'", JSON.stringify(sdk)));
      const env = { ...process.env, SMS_GATEWAY_URL: fx.baseUrl, SMS_GATEWAY_KEY: fx.tenant.key, SMS_GATEWAY_PASSPHRASE: 'readme passphrase' };
      const { code, output } = await new Promise<{ code: number | null; output: string }>((done, fail) => {
        const child = spawn(process.execPath, ['--import', 'tsx', file], { env, stdio: ['ignore', 'pipe', 'pipe'] });
        let output = '';
        child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
        child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
        child.on('error', fail);
        child.on('close', (code) => done({ code, output }));
      });
      expect(code, output).to.equal(0);
      expect(output).to.include('404 sms_not_found').and.include('true secret text');
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
