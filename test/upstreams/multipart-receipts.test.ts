// An SMS sent through an SMSC in parts: one submit_sm, one message id and one receipt per part.
// The SMS is delivered only once every part's receipt says delivered, whatever order they come
// in; the first part that fails fails the SMS at once with that part's outcome, and the parts'
// receipts after it change nothing. The SMSC is the smpp package's server (test/support/test-smsc.ts).
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { webhookConfig } from '../support/webhooks.ts';
import { eventually } from '../support/eventually.ts';
import { TestSmsc } from '../support/test-smsc.ts';
import { LOOPBACK_PROVIDERS, smppUpstream } from '../support/smpp-upstream.ts';

const PHONE = '+447911123456';
/** 168 characters outside the GSM alphabet: UCS-2 in parts of 67, three parts (an SMS has at most 170 characters). */
const LONG_TEXT = 'Ваша посылка в пути. '.repeat(8);
const STATE = { DELIVRD: 2, EXPIRED: 3, UNDELIV: 5 } as const;

describe('upstream routes: receipts of an SMS sent in parts', function () {
  this.timeout(30_000);
  const fx = useGateway({ config: { webhooks: webhookConfig({ allowedHosts: LOOPBACK_PROVIDERS }) } });
  let smsc: TestSmsc;

  beforeEach(async () => {
    smsc = await TestSmsc.start();
    const id = await smppUpstream(fx.tenant.api, smsc);
    const routes = await fx.tenant.api.request('PUT', '/routes', { routes: [{ target: id }] });
    expect(routes.status, JSON.stringify(routes.body)).to.equal(200);
  });
  afterEach(async () => {
    await smsc.stop();
  });

  const sms = async (id: string) => (await fx.tenant.api.get(`/sms/${id}`)).body as { status: string; reason: string | null };

  /** Sends the long text and waits until it is sent, in three parts; answers its id and the parts' message ids in order. */
  async function sendInParts(): Promise<{ id: string; parts: string[] }> {
    const created = await fx.tenant.api.post('/sms', { phone: PHONE, message: LONG_TEXT });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    const id = created.body.id as string;
    await eventually('sent', async () => (await sms(id)).status === 'sent');
    expect(smsc.submits, 'one submit_sm per part').to.have.length(3);
    return { id, parts: smsc.givenIds };
  }

  /** Sends one part's receipt and waits until the gateway took it (it answers the deliver_sm once applied). */
  async function receipt(messageId: string, stat: keyof typeof STATE): Promise<void> {
    const answered = smsc.deliverResponses.length;
    smsc.receipt(messageId, stat, STATE[stat]);
    await eventually(`the receipt of ${messageId} taken`, () => smsc.deliverResponses.length > answered);
    expect(smsc.deliverResponses.at(-1)!.command_status, 'the gateway took the receipt').to.equal(0);
  }

  it('is delivered only when the last of its parts is, the receipts coming out of order', async () => {
    const { id, parts } = await sendInParts();
    await receipt(parts[2]!, 'DELIVRD');
    expect((await sms(id)).status, 'after the third part').to.equal('sent');
    await receipt(parts[0]!, 'DELIVRD');
    expect((await sms(id)).status, 'after the first part').to.equal('sent');
    // The same part's receipt again does not stand for another part.
    await receipt(parts[0]!, 'DELIVRD');
    expect((await sms(id)).status, 'after the first part again').to.equal('sent');
    // A later, different receipt for a part already delivered: the part's first receipt stands.
    await receipt(parts[0]!, 'UNDELIV');
    expect((await sms(id)).status, 'after a different receipt for the first part').to.equal('sent');
    await receipt(parts[1]!, 'DELIVRD');
    expect((await sms(id)).status, 'after every part').to.equal('delivered');
  });

  it('fails at once with the first part that fails, and the other parts\' receipts change nothing', async () => {
    const { id, parts } = await sendInParts();
    await receipt(parts[1]!, 'UNDELIV');
    expect(await sms(id)).to.include({ status: 'undelivered', reason: 'UNDELIV 000' });
    await receipt(parts[0]!, 'DELIVRD');
    await receipt(parts[2]!, 'EXPIRED');
    expect(await sms(id)).to.include({ status: 'undelivered', reason: 'UNDELIV 000' });
  });

  it('fails when the last part fails after the others were delivered', async () => {
    const { id, parts } = await sendInParts();
    await receipt(parts[0]!, 'DELIVRD');
    await receipt(parts[2]!, 'DELIVRD');
    expect((await sms(id)).status).to.equal('sent');
    await receipt(parts[1]!, 'EXPIRED');
    expect(await sms(id)).to.include({ status: 'failed_delivery', reason: 'EXPIRED 000' });
  });
});
