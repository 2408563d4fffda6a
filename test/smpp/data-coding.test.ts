// data_coding as an ESME nobody here wrote (Net::SMPP) means it: 1 is IA5 (ASCII), 3 Latin-1,
// 8 UCS-2, and 0 the SMSC default alphabet, which is the credential's default_data_coding
// (GSM-7 unless it says ascii or latin1). The stored SMS has the text the ESME meant; text sent
// back to it with data_coding 0 is in that same alphabet.
import { expect } from 'chai';
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { useGateway } from '../support/use-gateway.ts';
import { hasNetSmpp, issueCredential, SMPP_ON, type IssuedCredential } from '../support/smpp-client.ts';
import { STATUS } from '../../src/api/smpp/command-status.ts';

const SCRIPT = fileURLToPath(new URL('./data-coding-esme.pl', import.meta.url));
const MEANT = 'Price: $5 @ shop_1 {x}';
/** MEANT in GSM 03.38: $ is 0x02, @ 0x00, _ 0x11, { and } escaped. */
const MEANT_GSM7 = Buffer.concat([Buffer.from('Price: '), Buffer.from([0x02]), Buffer.from('5 '), Buffer.from([0x00]), Buffer.from(' shop'), Buffer.from([0x11]), Buffer.from('1 '), Buffer.from([0x1b, 0x28]), Buffer.from('x'), Buffer.from([0x1b, 0x29])]);

describe('SMPP: data_coding as the ESME means it (Net::SMPP)', () => {
  const fx = useGateway({ config: { smpp: SMPP_ON } });

  before(function () {
    // .ci/run installs it; elsewhere: apt-get install libnet-smpp-perl.
    if (!hasNetSmpp()) this.skip();
  });

  /** Submits each (data_coding, octets); answers the stored text of each, or the refusal's status. */
  async function submitted(credential: IssuedCredential, messages: [number, Buffer][]): Promise<(string | number)[]> {
    const args = [SCRIPT, 'submit', '127.0.0.1', String(fx.gateway.smppPort), credential.system_id, credential.password, '79161234567', ...messages.map(([coding, octets]) => `${coding}:${octets.toString('hex')}`)];
    const output = await new Promise<string>((resolve, reject) => {
      execFile('perl', args, { timeout: 60_000 }, (error, stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stdout}\n${stderr}`)) : resolve(stdout)));
    });
    const lines = output.trim().split('\n').slice(1);
    expect(lines, output).to.have.length(messages.length);
    return Promise.all(
      lines.map(async (line) => {
        const refused = /^refused (\d+)$/.exec(line);
        if (refused) return Number(refused[1]);
        const id = /^submitted (\S+)$/.exec(line)?.[1];
        const sms = await fx.tenant.api.get(`/sms/${id}`);
        expect(sms.status, line).to.equal(200);
        return (sms.body as { message: string }).message;
      }),
    );
  }

  it('reads 0 as GSM-7 by default, 1 as ASCII, 3 as Latin-1 and 8 as UCS-2', async function () {
    this.timeout(90_000);
    await fx.connectDevice();
    const credential = await issueCredential(fx.tenant);
    const texts = await submitted(credential, [
      [0, MEANT_GSM7],
      [1, Buffer.from(MEANT, 'latin1')],
      [3, Buffer.from('Crème brûlée ½ ¿sí?', 'latin1')],
      [8, Buffer.from('Привет 👋 {x}', 'utf16le').swap16()],
    ]);
    expect(texts).to.deep.equal([MEANT, MEANT, 'Crème brûlée ½ ¿sí?', 'Привет 👋 {x}']);
  });

  it('refuses data_coding 1 (IA5, 7-bit) with an octet above 127: ESME_RINVDCS', async function () {
    this.timeout(90_000);
    await fx.connectDevice();
    const credential = await issueCredential(fx.tenant);
    expect(await submitted(credential, [[1, Buffer.from('caf\xe9', 'latin1')]])).to.deep.equal([STATUS.ESME_RINVDCS]);
  });

  it('reads 0 in the credential\'s default alphabet: ascii and latin1', async function () {
    this.timeout(90_000);
    await fx.connectDevice();
    const ascii = await issueCredential(fx.tenant, { default_data_coding: 'ascii' });
    expect(ascii).to.include({ default_data_coding: 'ascii' });
    expect(await submitted(ascii, [[0, Buffer.from(MEANT, 'latin1')], [0, Buffer.from('caf\xe9', 'latin1')]])).to.deep.equal([MEANT, STATUS.ESME_RINVDCS]);
    const latin1 = await issueCredential(fx.tenant, { default_data_coding: 'latin1' });
    expect(await submitted(latin1, [[0, Buffer.from('Crème {x} @ $5', 'latin1')]])).to.deep.equal(['Crème {x} @ $5']);
    const listed = await fx.tenant.api.get('/smpp/credentials');
    expect((listed.body as { data: { system_id: string; default_data_coding: string }[] }).data.find((row) => row.system_id === ascii.system_id)).to.include({ default_data_coding: 'ascii' });
  });

  it('changes a credential\'s default_data_coding (PATCH), read from its next bind', async function () {
    this.timeout(90_000);
    await fx.connectDevice();
    const credential = await issueCredential(fx.tenant);
    const changed = await fx.tenant.api.patch(`/smpp/credentials/${credential.id}`, { default_data_coding: 'ascii' });
    expect(changed.status, JSON.stringify(changed.body)).to.equal(200);
    expect(changed.body).to.include({ id: credential.id, default_data_coding: 'ascii' });
    expect(await submitted(credential, [[0, Buffer.from(MEANT, 'latin1')]])).to.deep.equal([MEANT]);
    expect((await fx.tenant.api.patch(`/smpp/credentials/${credential.id}`, {})).status).to.equal(400);
    expect((await fx.tenant.api.patch(`/smpp/credentials/${credential.id}`, { default_data_coding: 'utf8' })).status).to.equal(400);
    const other = await fx.newTenant();
    expect((await other.api.patch(`/smpp/credentials/${credential.id}`, { default_data_coding: 'latin1' })).status).to.equal(404);
  });

  it('refuses a default_data_coding it does not know with 400', async () => {
    const reply = await fx.tenant.api.post('/smpp/credentials', { default_data_coding: 'ebcdic' });
    expect(reply.status).to.equal(400);
  });

  for (const [alphabet, octets] of [
    ['gsm7', MEANT_GSM7],
    ['ascii', Buffer.from(MEANT, 'latin1')],
  ] as const) {
    it(`sends an incoming SMS to a ${alphabet} credential's ESME with data_coding 0 in that alphabet`, async function () {
      this.timeout(90_000);
      const phone = await fx.connectDevice();
      expect((await fx.tenant.api.patch(`/devices/${phone.id}/settings`, { forward_incoming_sms: true })).status).to.equal(200);
      const credential = await issueCredential(fx.tenant, { default_data_coding: alphabet });
      const esme = spawn('perl', [SCRIPT, 'receive', '127.0.0.1', String(fx.gateway.smppPort), credential.system_id, credential.password]);
      try {
        const lines = createInterface({ input: esme.stdout })[Symbol.asyncIterator]();
        expect((await lines.next()).value).to.equal('bound');
        await phone.receive('+79990001122', MEANT);
        expect((await lines.next()).value).to.equal(`deliver data_coding=0 hex=${octets.toString('hex')}`);
      } finally {
        if (esme.exitCode === null) {
          esme.kill();
          await once(esme, 'exit');
        }
      }
    });
  }
});
