// The Python SDK (sdk/python) against a real gateway: its unittest suite runs as a child process
// with the gateway's address and a fresh account's key in the environment, and with a webhook
// delivery this test captured from the gateway (headers, body, the webhook's secret) in a file, so
// that the Python side verifies a signature the gateway itself made. Its end-to-end encryption
// (AES-GCM written out in Python) is checked against the TypeScript SDK's both ways, and through
// the gateway to a simulated phone that decrypts with the passphrase.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { expect } from 'chai';
import { decrypt, encrypt } from '../../sdk/typescript/src/end-to-end.ts';
import { liftLimits, nextEvent } from '../support/devices.ts';
import { useGateway } from '../support/use-gateway.ts';
import { smsRow } from '../support/test-data.ts';
import { createWebhook, webhookConfig } from '../support/webhooks.ts';

function run(command: string, args: string[], env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

/** Runs a Python snippet with the SDK importable; its inputs come in the environment, never in the code. */
async function python(code: string, env: Record<string, string>): Promise<string> {
  const { code: exit, output } = await run('python3', ['-c', code], { ...env, PYTHONPATH: resolve('sdk/python'), PYTHONDONTWRITEBYTECODE: '1', PYTHONIOENCODING: 'utf-8' });
  expect(exit, output).to.equal(0);
  return output.replace(/\n$/, '');
}

describe('Python SDK against a real gateway', () => {
  const fx = useGateway({ config: () => ({ webhooks: webhookConfig() }) });
  let directory: string;

  before(() => {
    directory = mkdtempSync(join(tmpdir(), 'sdk-python-'));
  });
  after(() => rmSync(directory, { recursive: true, force: true }));

  it('passes its unittest suite, verifying a delivery the gateway signed', async function () {
    this.timeout(120_000);
    const receiver = await fx.receiver();
    const { secret } = await createWebhook(fx.tenant, receiver.url, ['sms.status_changed']);
    const phone = await fx.taskPhone();
    const sms = await fx.tenant.api.post('/sms', { phone: '+79161234567', message: 'for python', device_id: phone.id });
    expect(sms.status, JSON.stringify(sms.body)).to.equal(201);
    await phone.until(1);
    await phone.sendAll();
    const [delivery] = await receiver.waitFor(1);
    const file = join(directory, 'delivery.json');
    writeFileSync(file, JSON.stringify({ secret, headers: delivery!.headers, body: delivery!.body, sms_id: sms.body.id }));

    // A fresh account for the suite, its lists holding only what it sends: one phone, which has
    // taken one SMS (so that cancelling it is a conflict), and a key that may only read.
    const tenant = await fx.newTenant();
    const theirPhone = await fx.taskPhone({}, tenant);
    const taken = await tenant.api.post('/sms', { phone: '+79161234567', message: 'taken', device_id: theirPhone.id });
    await theirPhone.until(1);
    await theirPhone.report(taken.body.id, 'processing');
    const reader = await fx.keyWith(['sms:read'], tenant);
    const { code, output } = await run('python3', ['-m', 'unittest', 'discover', '-v', '-s', 'sdk/python/tests', '-t', 'sdk/python'], {
      SMS_GATEWAY_URL: fx.baseUrl,
      SMS_GATEWAY_KEY: tenant.key,
      SMS_GATEWAY_DELIVERY: file,
      SMS_GATEWAY_READ_KEY: reader.key!,
      SMS_GATEWAY_DEVICE_ID: theirPhone.id,
      SMS_GATEWAY_TAKEN_SMS: taken.body.id,
      SMS_GATEWAY_WEBHOOK_URL: receiver.url,
      PYTHONDONTWRITEBYTECODE: '1',
    });
    expect(code, output).to.equal(0);
    // Every test ran: none skipped for want of the gateway or the delivery.
    expect(output, output).to.not.match(/skipped/);
    expect(output, output).to.match(/^OK$/m);
  });

  it('encrypts as the TypeScript SDK does: each opens what the other sealed, and a wrong passphrase is a DecryptionError', async function () {
    this.timeout(30_000);
    const text = 'Код 4711 — только для телефона 🔐';
    const passphrase = 'shared between two languages';
    const fromTypescript = await encrypt(text, passphrase);
    const opened = await python('import os, sms_gateway as s; print(s.decrypt(os.environ["VALUE"], os.environ["PASS"]))', { VALUE: fromTypescript, PASS: passphrase });
    expect(opened).to.equal(text);

    const fromPython = await python('import os, sms_gateway as s; print(s.encrypt(os.environ["TEXT"], os.environ["PASS"]))', { TEXT: text, PASS: passphrase });
    expect(fromPython).to.match(/^\$aes-256-gcm\/pbkdf2-sha256\$i=100000\$/);
    expect(await decrypt(fromPython, passphrase)).to.equal(text);

    const refused = await python(
      'import os, sms_gateway as s\ntry:\n    s.decrypt(os.environ["VALUE"], "another passphrase")\nexcept s.DecryptionError as error:\n    print(type(error).__name__)',
      { VALUE: fromTypescript },
    );
    expect(refused).to.equal('DecryptionError');
  });

  it('sends an encrypted SMS that only the phone holding the passphrase reads, and sends in clear', async function () {
    this.timeout(30_000);
    const passphrase = 'the phone knows this one';
    const device = await fx.connectDevice({ passphrase });
    await liftLimits(fx.gateway, fx.tenant, device.id);
    const sent = nextEvent(device, 'report', (_id, status) => status === 'sent', 20_000);
    const answer = JSON.parse(
      await python(
        [
          'import json, os',
          'from sms_gateway import Client',
          'client = Client(os.environ["SMS_GATEWAY_URL"], os.environ["SMS_GATEWAY_KEY"])',
          'sms = client.send_encrypted_sms("+79161234567", "Tresor 4711", os.environ["PASS"], device_id=os.environ["DEVICE"])',
          'print(json.dumps(sms))',
        ].join('\n'),
        { SMS_GATEWAY_URL: fx.baseUrl, SMS_GATEWAY_KEY: fx.tenant.key, PASS: passphrase, DEVICE: device.id },
      ),
    );
    expect(answer).to.include({ is_encrypted: true, status: 'pending' });
    expect(answer.message).to.not.include('Tresor');
    const [smsId] = await sent;
    expect(smsId).to.equal(answer.id);
    // Over the air went the plaintext the phone decrypted; the gateway kept only ciphertext.
    expect(device.sent.get(answer.id)).to.include({ phone: '+79161234567', message: 'Tresor 4711' });
    const row = await smsRow(fx, answer.id);
    // The word, not the digits alone: four digits can turn up in an id by chance.
    expect(JSON.stringify(row)).to.not.contain('Tresor');
    expect(await decrypt(row.message, passphrase)).to.equal('Tresor 4711');
  });

  it("runs the README's examples as written (all but the webhook server and the endless stream)", async function () {
    this.timeout(60_000);
    const blocks = [...readFileSync('sdk/python/README.md', 'utf8').matchAll(/```python\n([\s\S]*?)```/g)].map((match) => match[1]!);
    const runnable = blocks.filter((block) => !block.includes('HTTPServer') && !block.includes('client.events()'));
    expect(runnable.length).to.be.at.least(2);
    // The project README's example too, its gateway address the test's.
    const sdks = readFileSync('README.md', 'utf8').split('## SDKs')[1]!.split('\n## ')[0]!;
    runnable.push(/```python\n([\s\S]*?)```/.exec(sdks)![1]!.replaceAll('http://localhost:3000', fx.baseUrl));
    const file = join(directory, 'readme.py');
    writeFileSync(file, runnable.join('\n'));
    const { code, output } = await run('python3', [file], {
      SMS_GATEWAY_URL: fx.baseUrl,
      SMS_GATEWAY_KEY: fx.tenant.key,
      SMS_GATEWAY_PASSPHRASE: 'readme passphrase',
      PYTHONPATH: resolve('sdk/python'),
      PYTHONDONTWRITEBYTECODE: '1',
    });
    expect(code, output).to.equal(0);
    expect(output).to.include('404 sms_not_found').and.match(/^False$/m);
    expect(output).to.match(/^True The vault code is 4711$/m).and.match(/^True secret text$/m).and.include('the passphrase does not open this payload');
  });
});
