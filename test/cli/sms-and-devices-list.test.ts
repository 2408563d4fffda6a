// `sms-gateway sms send|list` and `devices list`: the real command in a child process, a client of a
// running gateway's API with an API key (SMS_GATEWAY_URL, SMS_GATEWAY_KEY), as a newcomer types them.
import { expect } from 'chai';
import { expectRefused, jsonOf, killChildren, runCli, type CliResult } from '../support/cli.ts';
import { useGateway } from '../support/use-gateway.ts';

describe('sms-gateway sms send|list and devices list, against a running gateway', function () {
  this.timeout(120_000);
  const fx = useGateway();
  after(() => killChildren());

  const cli = (args: string[], key = fx.tenant.key): Promise<CliResult> => runCli(args, { SMS_GATEWAY_URL: fx.baseUrl, SMS_GATEWAY_KEY: key }, 90_000);

  it('sms send queues an SMS the API then shows, and sms list lists it, newest first', async () => {
    const sent = await cli(['sms', 'send', '--phone', '+79161234567', '--message', 'Hello from the command line', '--json']);
    expect(sent.code, sent.transcript).to.equal(0);
    const sms = jsonOf(sent);
    expect(sms).to.include({ phone: '+79161234567', status: 'pending' });
    expect((await fx.tenant.api.get(`/sms/${sms.id}`)).body.message).to.equal('Hello from the command line');

    const second = await cli(['sms', 'send', '--phone', '+79161234568', '--message', 'second']);
    expect(second.code, second.transcript).to.equal(0);
    expect(second.stdout).to.match(/^SMS [0-9a-f-]{36} queued for \+79161234568 \(status pending\)\n$/);

    const listed = await cli(['sms', 'list']);
    expect(listed.code, listed.transcript).to.equal(0);
    const lines = listed.stdout.trim().split('\n');
    expect(lines[0]).to.match(/^ID\s+PHONE\s+STATUS\s+DEVICE\s+UPDATED$/);
    expect(lines.slice(1).map((line) => line.split(/\s+/)[1])).to.deep.equal(['+79161234568', '+79161234567']);
  });

  it('sms send with a bad number is refused with the API\'s message and exit 1', async () => {
    const result = await cli(['sms', 'send', '--phone', '12', '--message', 'x']);
    expectRefused(result, 1);
    expect(result.stderr).to.contain('400 invalid_phone');
  });

  it('a refusal whose details repeat its message prints it once; details that add something are kept', async () => {
    const badPhone = await cli(['sms', 'send', '--phone', '12', '--message', 'x']);
    expectRefused(badPhone, 1);
    expect(badPhone.stderr.split('must be a valid phone number').length - 1, badPhone.transcript).to.equal(1);
    expect(badPhone.stderr).to.match(/^error: the gateway answered 400 invalid_phone: phone must be a valid phone number[^()\n]*$/m);

    const noDevice = await cli(['sms', 'send', '--phone', '+79161234567', '--message', 'x', '--device', '7d3c9a52-0b6e-4f4b-9a39-3f1f2f0b4c11']);
    expectRefused(noDevice, 1);
    expect(noDevice.stderr).to.match(/^error: the gateway answered 404 device_not_found: device not found \(device_id names no device of this account\)$/m);
  });

  it('sms list with a status the API does not have is refused naming the statuses there are, exit 2', async () => {
    const result = await cli(['sms', 'list', '--status', 'failed']);
    expectRefused(result, 2);
    expect(result.stderr).to.contain('--status must be one of pending, sent, delivered, undelivered, failed_send, failed_delivery, got "failed"');
    const help = await cli(['sms', '--help']);
    expect(help.stdout).to.contain('failed_send');
    expect(help.stdout).not.to.contain('failed...');
  });

  it('sms list with a negative --limit, after a space or an equals sign, is refused with the range it takes, exit 2', async () => {
    for (const args of [['--limit', '-1'], ['--limit=-1']]) {
      const result = await cli(['sms', 'list', ...args]);
      expectRefused(result, 2);
      expect(result.stderr, result.transcript).to.match(/^error: --limit must be a whole number from 1 to 100, got "-1"$/m).and.not.to.contain('ambiguous');
    }
  });

  it('a value that begins with a dash but is no number is refused in the command\'s own words, saying how to write it, exit 2', async () => {
    const cases: [string[], string][] = [
      [['sms', 'send', '--phone', '+79161234567', '--message', '-hello'], 'error: --message: a value that begins with a dash is written joined to its flag, --message=-hello\n'],
      [['sms', 'send', '--message', '--phone', '+79161234567'], 'error: --message needs a value, but --phone follows it (a value that begins with a dash is written --message=--phone)\n'],
      // A secret is not printed back.
      [['simulate', '--device', '0b0c5e9e-5d8e-4a53-9d5f-3c1f0e9b8a11', '--token', '-sgd_secret'], 'error: --token: a value that begins with a dash is written joined to its flag, --token=VALUE\n'],
    ];
    for (const [args, message] of cases) {
      const result = await cli(args);
      expectRefused(result, 2);
      expect(result.stderr, result.transcript).to.contain(message).and.not.to.contain('ambiguous').and.not.to.contain('sgd_secret');
    }
    const joined = await cli(['sms', 'send', '--phone', '+79161234567', '--message=-hello', '--json']);
    expect(joined.code, joined.transcript).to.equal(0);
    expect((await fx.tenant.api.get(`/sms/${jsonOf(joined).id}`)).body.message).to.equal('-hello');
  });

  it('devices list shows each phone of the account and whether it is online', async () => {
    const phone = await fx.connectDevice({ name: 'Counter phone' });
    await fx.tenant.api.post('/devices', { name: 'Drawer phone' });
    const listed = await cli(['devices', 'list', '--json']);
    expect(listed.code, listed.transcript).to.equal(0);
    const rows = jsonOf(listed) as { id: string; is_online: boolean }[];
    expect(rows.map((row) => [row.id === phone.id, row.is_online]).sort()).to.deep.equal([[false, false], [true, true]]);
    const text = await cli(['devices', 'list']);
    expect(text.stdout.split('\n')[0]).to.match(/^ID\s+NAME\s+ONLINE\s+LAST_SEEN$/);
    expect(text.stdout).to.match(/Drawer phone\s+no/);
  });

  it('without SMS_GATEWAY_KEY it says which variable to set, exit 2', async () => {
    const result = await runCli(['sms', 'list'], { SMS_GATEWAY_URL: fx.baseUrl });
    expectRefused(result, 2);
    expect(result.stderr).to.contain('SMS_GATEWAY_KEY is not set');
  });
});
