// The README's "Coming from Twilio" snippet, run exactly as written (a child node process, the
// official twilio package) against a running gateway, with only its environment set.
import { execFile } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { REPO_ROOT } from '../support/cli.ts';
import { useGateway } from '../support/use-gateway.ts';
import { createCredential } from './support.ts';

function readmeSnippet(): string {
  const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
  const block = /<!-- twilio-snippet -->\n```js\n([\s\S]*?)```\n<!-- \/twilio-snippet -->/.exec(readme);
  if (!block) throw new Error('README.md has no twilio snippet between its markers');
  return block[1]!;
}

describe('twilio: the README snippet', function () {
  this.timeout(30_000);
  const fx = useGateway();

  it('sends an SMS through the gateway as written', async () => {
    const credential = await createCredential(fx.tenant);
    // Inside the repository, so that "twilio" resolves to its node_modules.
    const file = join(REPO_ROOT, 'test', 'twilio', `.snippet-${randomBytes(4).toString('hex')}.mjs`);
    writeFileSync(file, readmeSnippet());
    try {
      const env: NodeJS.ProcessEnv = { ...process.env, TWILIO_ACCOUNT_SID: credential.account_sid, TWILIO_AUTH_TOKEN: credential.auth_token, SMS_GATEWAY_URL: fx.baseUrl };
      delete env.TWILIO_REGION;
      delete env.TWILIO_EDGE;
      const { stdout } = await promisify(execFile)(process.execPath, [file], { env, timeout: 20_000 });
      const [sid, status] = stdout.trim().split(' ');
      expect(sid).to.match(/^SM[0-9a-f]{32}$/);
      expect(status).to.equal('queued');
      const listed = await fx.tenant.api.get('/sms');
      expect(listed.body.data.map((sms: { message: string }) => sms.message)).to.deep.equal(['Hello from the gateway']);
    } finally {
      rmSync(file, { force: true });
    }
  });
});
