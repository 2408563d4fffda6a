// `sms-gateway mcp` refuses to start without a usable key and URL: a clear message on stderr,
// a non-zero exit, nothing on stdout (which belongs to the protocol), and never the key itself.
import { expect } from 'chai';
import { expectRefused, runCli } from '../support/cli.ts';

const KEY = 'sgw_0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQ';

describe('sms-gateway mcp settings', function () {
  // The first start of the command may compile dist/.
  this.timeout(180_000);

  it('refuses a missing key, naming SMS_GATEWAY_KEY', async () => {
    const result = await runCli(['mcp'], { SMS_GATEWAY_URL: 'http://127.0.0.1:3000' }, 170_000);
    expectRefused(result);
    expect(result.stderr).to.contain('SMS_GATEWAY_KEY is not set');
  });

  it('refuses a key that is no API key, without echoing it', async () => {
    const result = await runCli(['mcp'], { SMS_GATEWAY_URL: 'http://127.0.0.1:3000', SMS_GATEWAY_KEY: 'secret-but-wrong' });
    expectRefused(result);
    expect(result.stderr).to.contain('SMS_GATEWAY_KEY is not an API key');
    expect(result.stderr).not.to.contain('secret-but-wrong');
  });

  it('refuses a missing URL, naming SMS_GATEWAY_URL', async () => {
    const result = await runCli(['mcp'], { SMS_GATEWAY_KEY: KEY, SMS_GATEWAY_URL: undefined });
    expectRefused(result);
    expect(result.stderr).to.contain('SMS_GATEWAY_URL is not set');
    expect(result.stderr).not.to.contain(KEY);
  });

  for (const url of ['not a url', 'ftp://gateway.example', 'http://user:pass@gateway.example']) {
    it(`refuses SMS_GATEWAY_URL=${url}`, async () => {
      const result = await runCli(['mcp'], { SMS_GATEWAY_KEY: KEY, SMS_GATEWAY_URL: url });
      expectRefused(result);
      expect(result.stderr).to.match(/SMS_GATEWAY_URL (is not a URL|must)/);
      expect(result.stderr).not.to.contain(KEY);
    });
  }
});
