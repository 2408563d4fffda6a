// Asking for help is an answer, not an error: `sms-gateway <command> --help` prints that
// command's usage on stdout and exits 0, `serve --help` lists every setting the gateway reads
// with its default, and `--version` names the package's version.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { expectOk, expectRefused, REPO_ROOT, runCli } from '../support/cli.ts';

const COMMANDS = ['serve', 'migrate', 'accounts', 'keys', 'users', 'devices', 'webhooks', 'upstreams', 'routes', 'simulate'];

/** Every environment variable src/config.ts reads, found in its source. */
function configVariables(): string[] {
  const names = new Set<string>();
  // The configuration, and the Redis Sentinel settings it reads through redis-options.ts.
  for (const file of [['src', 'config.ts'], ['src', 'cluster', 'redis-options.ts']]) {
    const source = readFileSync(join(REPO_ROOT, ...file), 'utf8');
    const reads = /\bread(?:<[^>]*>)?\('([A-Z][A-Z0-9_]*)'|readUrl\(env, '([A-Z][A-Z0-9_]*)'|\benv\['([A-Z][A-Z0-9_]*)'\]|\bvalue\('([A-Z][A-Z0-9_]*)'\)/g;
    for (const match of source.matchAll(reads)) names.add((match[1] ?? match[2] ?? match[3] ?? match[4])!);
  }
  return [...names];
}

describe('cli: help and version', function () {
  this.timeout(60_000);

  for (const command of COMMANDS) {
    for (const flag of ['--help', '-h']) {
      it(`when "${command} ${flag}" is run, then it prints the usage of ${command} on stdout and exits 0`, async () => {
        const result = await runCli([command, flag], {});
        expectOk(result);
        expect(result.stdout, result.transcript).to.match(new RegExp(`^usage:\\s+sms-gateway ${command}\\b`));
        expect(result.stderr, result.transcript).to.equal('');
      });
    }
  }

  it('when --help follows an action and its flags, then that is still help (exit 0), not a run', async () => {
    const result = await runCli(['keys', 'create', '--account', 'x', '--help'], {});
    expectOk(result);
    expect(result.stdout).to.contain('sms-gateway keys create --account NAME');
  });

  it('when "e2e --help" is run, then its usage lists --json, which both its actions take', async () => {
    const help = await runCli(['e2e', '--help'], {});
    expectOk(help);
    expect(help.stdout).to.match(/sms-gateway e2e encrypt TEXT .*\[--json\]/).and.to.match(/sms-gateway e2e decrypt CIPHERTEXT .*\[--json\]/);
    expect(help.stdout).to.match(/^ {2}--json /m);
    const encrypted = await runCli(['e2e', 'encrypt', 'hello', '--json'], { SMS_GATEWAY_PASSPHRASE: 'correct horse battery' });
    expectOk(encrypted);
    expect(JSON.parse(encrypted.stdout)).to.have.all.keys('ciphertext');
  });

  it('when "serve --help" is run, then its usage lists --json and says what it prints: the first-start banner', async () => {
    const help = await runCli(['serve', '--help'], {});
    expectOk(help);
    expect(help.stdout, help.transcript).to.match(/^usage: sms-gateway serve \[--json\]$/m).and.to.match(/first-start banner/);
  });

  it('when "simulate --help" is run, then its options list --json and say what it prints when the run ends', async () => {
    const help = await runCli(['simulate', '--help'], {});
    expectOk(help);
    expect(help.stdout, help.transcript).to.match(/^ {2}--json +when the run ends, print the devices run/m);
  });

  it('when "mcp --json" is run, then it is refused, saying its stdout is the protocol already (exit 2), and its usage says so', async () => {
    const result = await runCli(['mcp', '--json'], { SMS_GATEWAY_KEY: 'sgw_0123456789_x', SMS_GATEWAY_URL: 'http://127.0.0.1:9' });
    expectRefused(result, 2);
    expect(result.stderr, result.transcript).to.contain('mcp takes no --json: its stdout is the MCP protocol');
    const help = await runCli(['mcp', '--help'], {});
    expectOk(help);
    expect(help.stdout).to.contain('so mcp takes no --json');
  });

  it('when "help simulate" is run, then it prints the usage of simulate', async () => {
    const result = await runCli(['help', 'simulate'], {});
    expectOk(result);
    expect(result.stdout).to.match(/^usage: sms-gateway simulate/);
  });

  it('when a command that needs an action is given none, then that is still a usage error (exit 2, stderr)', async () => {
    expectRefused(await runCli(['keys'], {}), 2);
  });

  it('when "serve --help" is run, then every variable the configuration reads is listed, with its default, one line each', async () => {
    const result = await runCli(['serve', '--help'], {});
    expectOk(result);
    const variables = configVariables();
    expect(variables).to.include.members(['PORT', 'DATA_DIR', 'DATABASE_URL', 'LOG_FORMAT', 'REDIS_SENTINELS']);
    const lines = result.stdout.split('\n');
    for (const name of variables) {
      const listed = lines.filter((line) => new RegExp(`^  ${name} `).test(line));
      expect(listed, `${name} in:\n${result.stdout}`).to.have.length(1);
    }
    expect(lines.find((line) => line.startsWith('  PORT '))).to.match(/^ {2}PORT +3000 +HTTP port/);
    expect(lines.find((line) => line.startsWith('  LOG_FORMAT '))).to.match(/json/);
  });

  for (const flag of ['--version', '-V']) {
    it(`when "${flag}" is run, then it prints the package's version and exits 0`, async () => {
      const { version } = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
      const result = await runCli([flag], {});
      expectOk(result);
      expect(result.stdout).to.equal(`sms-gateway ${version}\n`);
    });
  }
});
