// The README's Kannel example, run: Debian's bearerbox and smsbox with the README's `smsc` group
// (read from README.md, only the address and credential put in), bound to the gateway over SMPP.
// An SMS sent through Kannel's sendsms HTTP interface reaches a real MQTT phone, which reports it
// delivered; Kannel hears the receipt and calls its dlr-url; an SMS the phone receives reaches
// Kannel's sms-service. Free ports and a temporary directory; both boxes are killed after.
import { expect } from 'chai';
import { existsSync } from 'node:fs';
import { useGateway } from '../support/use-gateway.ts';
import { issueCredential, SMPP_ON } from '../support/smpp-client.ts';
import { eventually } from '../support/eventually.ts';
import { BEARERBOX, Kannel, readmeSmscGroup, SMSBOX, smscGroupFor } from '../support/kannel.ts';
import type { Receiver } from '../support/receiver.ts';

function query(path: string): URLSearchParams {
  return new URL(path, 'http://receiver').searchParams;
}

describe('SMPP: Kannel with the README\'s smsc group', function () {
  this.timeout(90_000);
  const fx = useGateway({ config: { smpp: SMPP_ON } });
  let kannel: Kannel | undefined;

  before(function () {
    // .ci/run installs it; elsewhere: apt-get install kannel.
    if (!existsSync(BEARERBOX) || !existsSync(SMSBOX)) this.skip();
  });

  afterEach(async function () {
    if (this.currentTest?.state === 'failed' && kannel) console.log(kannel.logs());
    await kannel?.stop();
    kannel = undefined;
  });

  it('the README still has the smsc group this test runs', () => {
    const group = readmeSmscGroup();
    for (const line of ['group = smsc', 'smsc = smpp', 'transceiver-mode = true', 'smsc-username = ', 'smsc-password = ', 'host = ', 'port = ']) {
      expect(group).to.include(line);
    }
    const filled = smscGroupFor(2775, 'kannel1', 'secret12');
    expect(filled).to.match(/^host = 127\.0\.0\.1$/m).and.match(/^port = 2775$/m).and.match(/^smsc-username = kannel1$/m).and.match(/^smsc-password = secret12$/m);
    // Every other line is the README's own.
    expect(filled.split('\n').filter((line) => !/^(host|port|smsc-username|smsc-password) = /.test(line))).to.deep.equal(
      group.split('\n').filter((line) => !/^(host|port|smsc-username|smsc-password) = /.test(line)),
    );
  });

  it('sends an SMS from sendsms to a phone, hears its receipt at dlr-url, and passes on what the phone receives', async () => {
    const phone = await fx.connectDevice();
    expect((await fx.tenant.api.patch(`/devices/${phone.id}/settings`, { forward_incoming_sms: true, name_custom: 'Front desk' })).status).to.equal(200);
    const credential = await issueCredential(fx.tenant, { system_id: 'kannel1' });
    const receiver: Receiver = await fx.receiver();
    receiver.respond = () => 200;
    kannel = await Kannel.start({
      smscGroup: smscGroupFor(fx.gateway.smppPort, credential.system_id, credential.password),
      moUrl: `http://127.0.0.1:${receiver.port}/mo?from=%p&to=%P&text=%a`,
    });

    const sent = await kannel.sendsms({
      to: '+79161234567',
      from: 'Shop',
      text: 'Hello through Kannel',
      'dlr-mask': '11',
      'dlr-url': `http://127.0.0.1:${receiver.port}/dlr?type=%d&id=%F&answer=%A`,
    });
    expect(sent.status, sent.body).to.equal(202);

    const sms = await eventually(
      'the phone delivered it',
      async () => {
        const list = await fx.tenant.api.get('/sms?search=Hello%20through%20Kannel');
        const found = list.body.data?.[0];
        return found?.status === 'delivered' ? found : undefined;
      },
      30_000,
    );
    expect(sms).to.include({ phone: '+79161234567', message: 'Hello through Kannel', device_id: phone.id });

    const dlr = await eventually(
      'Kannel called dlr-url with the delivery',
      async () => receiver.received.map((r) => query(r.path)).find((q) => q.get('type') === '1'),
      30_000,
    );
    expect(dlr.get('id')).to.equal(sms.id);
    expect(dlr.get('answer')).to.match(new RegExp(`^id:${sms.id} sub:001 dlvrd:001 .* stat:DELIVRD err:000`));
    expect(receiver.received.map((r) => query(r.path).get('type'))).to.include('8');

    // A number without "+" goes out national (Kannel's default TON 2): with no DEFAULT_PHONE_REGION the
    // gateway cannot read it, and refuses it at once, which Kannel reports as rejected (dlr type 16)
    // rather than an SMS accepted and never delivered.
    const national = await kannel.sendsms({
      to: '79161234567',
      from: 'Shop',
      text: 'No region to read me in',
      'dlr-mask': '27',
      'dlr-url': `http://127.0.0.1:${receiver.port}/dlr?type=%d&id=%F&to=%p`,
    });
    expect(national.status, national.body).to.equal(202);
    await eventually('Kannel reported the rejection', async () => receiver.received.map((r) => query(r.path)).find((q) => q.get('type') === '16' && q.get('to') === '79161234567'), 30_000);
    expect((await fx.tenant.api.get('/sms?search=No%20region')).body.data).to.deep.equal([]);

    await phone.receive('+79990001122', 'Hi Kannel');
    const mo = await eventually('Kannel passed on the incoming SMS', async () => receiver.received.map((r) => query(r.path)).find((q) => q.get('text') === 'Hi Kannel'), 30_000);
    expect(mo.get('from')).to.match(/^\+?79990001122$/);
    expect(mo.get('to')).to.equal('Front des/0');
  });
});
