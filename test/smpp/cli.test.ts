// `sms-gateway smpp credentials create|list|delete`: a credential made on the command line binds,
// its password is printed once and never listed, and one deleted there is refused at its next bind.
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { runCli, tempDataDir, type Env } from '../support/cli.ts';
import { testDatabaseUrl } from '../support/environment.ts';
import { startGateway } from '../support/gateway.ts';
import { SMPP_ON, TestEsme } from '../support/smpp-client.ts';
import { STATUS } from '../../src/api/smpp/command-status.ts';
import type { Gateway } from '../../src/gateway.ts';

describe('SMPP: the command line', function () {
  this.timeout(120_000);
  let env: Env;
  let gateway: Gateway | undefined;
  let removeDataDir = () => {};
  const account = `smpp-${randomBytes(4).toString('hex')}`;

  before(async () => {
    const databaseUrl = testDatabaseUrl();
    if (databaseUrl) {
      env = { DATABASE_URL: databaseUrl };
      gateway = await startGateway({ smpp: SMPP_ON });
    } else {
      const dataDir = tempDataDir('smpp-cli');
      removeDataDir = dataDir.remove;
      env = { DATA_DIR: dataDir.dir };
    }
    const created = await runCli(['accounts', 'create', account], env, 80_000);
    expect(created.code, created.transcript).to.equal(0);
  });

  after(async () => {
    await gateway?.stop();
    removeDataDir();
  });

  it('creates a credential with --default-data-coding, and refuses an alphabet it does not know', async () => {
    const created = await runCli(['smpp', 'credentials', 'create', '--account', account, '--default-data-coding', 'latin1', '--json'], env);
    expect(created.code, created.transcript).to.equal(0);
    const listed = await runCli(['smpp', 'credentials', 'list', '--account', account, '--json'], env);
    expect(listed.code, listed.transcript).to.equal(0);
    const rows = JSON.parse(listed.stdout) as Record<string, unknown>[];
    expect(rows.find((row) => row.id === JSON.parse(created.stdout).id)).to.include({ default_data_coding: 'latin1' });
    const refused = await runCli(['smpp', 'credentials', 'create', '--account', account, '--default-data-coding', 'utf8'], env);
    expect(refused.code, refused.transcript).to.not.equal(0);
    expect(refused.stderr).to.contain('--default-data-coding must be one of gsm7, ascii, latin1');
  });

  it('creates a credential (password shown once), lists it without the password, deletes it', async () => {
    const created = await runCli(['smpp', 'credentials', 'create', '--account', account, '--throughput', '20', '--json'], env);
    expect(created.code, created.transcript).to.equal(0);
    const credential = JSON.parse(created.stdout);
    expect(credential.password).to.match(/^[A-Za-z0-9]{8}$/);

    if (gateway) {
      const esme = await TestEsme.connect(gateway.smppPort);
      try {
        expect((await esme.call('bind_transceiver', { system_id: credential.system_id, password: credential.password })).command_status).to.equal(STATUS.ESME_ROK);
      } finally {
        esme.close();
      }
    }

    const listed = await runCli(['smpp', 'credentials', 'list', '--account', account], env);
    expect(listed.code, listed.transcript).to.equal(0);
    expect(listed.stdout).to.contain(credential.system_id);
    expect(listed.stdout).not.to.contain(credential.password);

    const deleted = await runCli(['smpp', 'credentials', 'delete', credential.id], env);
    expect(deleted.code, deleted.transcript).to.equal(0);
    expect(deleted.stdout).to.contain('revoked');

    if (gateway) {
      const esme = await TestEsme.connect(gateway.smppPort);
      try {
        expect((await esme.call('bind_transceiver', { system_id: credential.system_id, password: credential.password })).command_status).to.equal(STATUS.ESME_RBINDFAIL);
      } finally {
        esme.close();
      }
    }
  });

  it('refuses bad flags with the usage', async () => {
    const bad = await runCli(['smpp', 'credentials', 'create', '--account', account, '--window', 'lots'], env);
    expect(bad.code).to.not.equal(0);
    expect(bad.stderr).to.contain('--window');
    const nothing = await runCli(['smpp'], env);
    expect(nothing.stderr).to.contain('smpp credentials create');
  });
});
