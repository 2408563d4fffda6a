// The README's swaks example, run as written (only the gateway's address and a real key put in):
// Debian's swaks, an SMTP client we did not write, logs in with AUTH PLAIN and its mail reaches a
// phone as an SMS; a text too long is refused at DATA, and swaks shows the 554 and its reason.
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { useGateway } from '../support/use-gateway.ts';
import { receivingPhone } from '../opt-out/support.ts';
import { smtpOn } from './support.ts';

const run = promisify(execFile);
const SWAKS = '/usr/bin/swaks';

function readmeSwaks(): string {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const block = /```\n(swaks --server [\s\S]*?)```/.exec(readme);
  if (!block) throw new Error('README.md has no swaks example (a ``` block starting "swaks --server")');
  return block[1]!;
}

describe('email to SMS: the README\'s swaks example', function () {
  this.timeout(30_000);
  const fx = useGateway({ config: { smtp: smtpOn() } });

  before(function () {
    // .ci/run installs it; elsewhere: apt-get install swaks.
    if (!existsSync(SWAKS)) this.skip();
  });

  const swaks = (command: string) =>
    run('bash', ['-c', command.replace('gateway.example.com:2525', `127.0.0.1:${fx.gateway.smtpPort}`)], { env: { ...process.env, API_KEY: fx.tenant.key } }).then(
      ({ stdout }) => ({ code: 0, output: stdout }),
      (error: { code: number; stdout: string }) => ({ code: error.code, output: error.stdout }),
    );

  it('sends the README\'s mail as an SMS to the phone', async () => {
    const phone = await receivingPhone(fx);
    const { code, output } = await swaks(readmeSwaks());
    expect(code, output).to.equal(0);
    await phone.until(1);
    expect(phone.tasks[0]).to.include({ phone: '+491701234567', message: 'Dinner at 8?' });
  });

  it('shows swaks the 554 and its reason for a text longer than one SMS', async () => {
    const long = readmeSwaks().replace('--body "Dinner at 8?"', `--body "${'x'.repeat(200)}"`);
    expect(long).to.contain('x'.repeat(200));
    const { code, output } = await swaks(long);
    expect(code).to.not.equal(0);
    expect(output).to.match(/<\*\* +554 5\.6\.0 The SMS text is too long: 200 characters/);
  });
});
