// Delivery receipts and incoming SMS as deliver_sm: the customary receipt text with
// receipted_message_id and message_state, for delivered, undelivered, failed and expired SMS;
// retried until the ESME answers; kept in the database across a gateway restart and for a
// system_id with no session bound, until its next bind.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { bindEsme, issueCredential, SMPP_ON, TestEsme, type IssuedCredential } from '../support/smpp-client.ts';
import { testDatabaseUrl } from '../support/environment.ts';
import { eventually } from '../support/eventually.ts';
import { smppReceiptKept } from '../support/test-data.ts';
import { STATUS } from '../../src/api/smpp/command-status.ts';
import { MESSAGE_STATE } from '../../src/modules/smpp/message-state.ts';
import { receivingAddress } from '../../src/modules/smpp/receiving-address.ts';

const RECEIPT = /^id:(\S+) sub:001 dlvrd:(00[01]) submit date:\d{10} done date:\d{10} stat:([A-Z]{7}) err:\d{3} text:(.*)$/;

describe('SMPP: delivery receipts and incoming SMS', () => {
  const fx = useGateway({ config: { smpp: SMPP_ON } });
  const opened: TestEsme[] = [];
  afterEach(() => opened.splice(0).forEach((esme) => esme.close()));

  async function bound(credential: IssuedCredential, mode?: string): Promise<TestEsme> {
    const esme = await bindEsme(fx.gateway, credential, mode);
    opened.push(esme);
    return esme;
  }

  async function submit(esme: TestEsme, text: string, fields: Record<string, unknown> = {}): Promise<string> {
    const response = await esme.call('submit_sm', { source_addr: 'MyShop', destination_addr: '+79161234567', short_message: text, registered_delivery: 1, ...fields });
    expect(response.command_status).to.equal(STATUS.ESME_ROK);
    return response.message_id;
  }

  function readReceipt(pdu: { short_message: { message: string }; esm_class: number; message_state: number; source_addr: string; destination_addr: string }) {
    const match = RECEIPT.exec(pdu.short_message.message);
    expect(match, pdu.short_message.message).to.not.equal(null);
    expect(pdu.esm_class & 0x04).to.equal(0x04);
    return { id: match![1], dlvrd: match![2], stat: match![3], text: match![4], state: pdu.message_state };
  }

  it('sends a DELIVRD receipt of a delivered SMS, with receipted_message_id and message_state', async () => {
    await fx.connectDevice();
    const esme = await bound(await issueCredential(fx.tenant));
    const id = await submit(esme, 'Your code is 1234, welcome aboard');
    const pdu = await esme.receiptOf(id);
    const receipt = readReceipt(pdu as never);
    expect(receipt).to.deep.equal({ id, dlvrd: '001', stat: 'DELIVRD', text: 'Your code is 1234, w', state: MESSAGE_STATE.DELIVERED });
    expect(pdu.destination_addr).to.equal('MyShop');
    expect(pdu.source_addr).to.equal('79161234567');
    await eventually('the receipt row is done', async () => ((await fx.gateway.services.smpp.countPending()) === 0 ? true : undefined));
  });

  it('sends UNDELIV for an undelivered SMS, REJECTD for a failed one, EXPIRED for an expired one; registered_delivery 2 only for failures', async () => {
    const esme = await bound(await issueCredential(fx.tenant));
    const undelivering = await fx.connectDevice({ undeliveredRate: 1 });
    const undelivered = await submit(esme, 'one');
    expect(readReceipt((await esme.receiptOf(undelivered)) as never)).to.include({ stat: 'UNDELIV', state: MESSAGE_STATE.UNDELIVERABLE, dlvrd: '000' });
    await undelivering.stop();

    const failing = await fx.connectDevice({ failSendRate: 1 });
    const failed = await submit(esme, 'two');
    expect(readReceipt((await esme.receiptOf(failed)) as never)).to.include({ stat: 'REJECTD', state: MESSAGE_STATE.REJECTED });
    await failing.stop();

    const expiring = await submit(esme, 'three', { validity_period: '000000000001000R' });
    expect(readReceipt((await esme.receiptOf(expiring, 15_000)) as never)).to.include({ stat: 'EXPIRED', state: MESSAGE_STATE.EXPIRED });

    await fx.connectDevice();
    const onlyFailures = await submit(esme, 'four', { registered_delivery: 2 });
    await eventually('delivered', async () => ((await fx.tenant.api.get(`/sms/${onlyFailures}`)).body.status === 'delivered' ? true : undefined));
    const none = await submit(esme, 'five', { registered_delivery: 0 });
    await eventually('delivered', async () => ((await fx.tenant.api.get(`/sms/${none}`)).body.status === 'delivered' ? true : undefined));
    // A receipt is stored with the status change and a credential's receipts go out oldest first:
    // one owed for an SMS above would arrive before the receipt of an SMS submitted after it.
    const marker = await submit(esme, 'six');
    await esme.receiptOf(marker);
    const receipted = esme.delivered.map((pdu) => pdu.receipted_message_id);
    expect(receipted, 'registered_delivery 2, delivered').not.to.include(onlyFailures);
    expect(receipted, 'registered_delivery 0').not.to.include(none);
  });

  it('keeps a receipt for a system_id with no receiver bound and sends it at its next bind; retries one left unanswered', async () => {
    await fx.connectDevice();
    const credential = await issueCredential(fx.tenant);
    const transmitter = await bound(credential, 'bind_transmitter');
    const id = await submit(transmitter, 'hello');
    await eventually('the receipt is stored', async () => ((await fx.gateway.services.smpp.countPending()) > 0 ? true : undefined));
    // Told before its bind: the receipt may arrive in the same read as bind_resp.
    const stuck = await TestEsme.connect(fx.gateway.smppPort);
    opened.push(stuck);
    stuck.answerDeliveries = false;
    expect((await stuck.call('bind_receiver', { system_id: credential.system_id, password: credential.password })).command_status).to.equal(STATUS.ESME_ROK);
    await stuck.receiptOf(id);
    stuck.close();
    const receiver = await bound(credential, 'bind_receiver');
    expect(readReceipt((await receiver.receiptOf(id)) as never).stat).to.equal('DELIVRD');
  });

  it('drops a receipt that waited past the retention time', async () => {
    await fx.connectDevice();
    const credential = await issueCredential(fx.tenant);
    const transmitter = await bound(credential, 'bind_transmitter');
    const id = await submit(transmitter, 'nobody listens');
    await eventually('the receipt is stored', async () => ((await smppReceiptKept(fx, id)) ? true : undefined));
    // The count is what the operator's warning says was dropped (other accounts' too: the purge is the whole gateway's).
    expect(await fx.gateway.services.smpp.purge(0)).to.be.a('number').and.at.least(1);
    const receiver = await bound(credential, 'bind_receiver');
    // Receipts go out oldest first: had the dropped one been kept, it would arrive before this one.
    const marker = await submit(transmitter, 'after the purge');
    await receiver.receiptOf(marker);
    expect(receiver.delivered.map((pdu) => pdu.receipted_message_id)).not.to.include(id);
  });

  it('sends an incoming SMS from the account\'s phone to its receivers, addressed to the phone by name and SIM slot', async () => {
    const phone = await fx.connectDevice();
    expect((await fx.tenant.api.patch(`/devices/${phone.id}/settings`, { forward_incoming_sms: true, name_custom: 'Front desk' })).status).to.equal(200);
    const esme = await bound(await issueCredential(fx.tenant), 'bind_receiver');
    await phone.receive('+79990001122', 'Привет from a phone');
    const pdu = await esme.next((candidate) => candidate.command === 'deliver_sm' && candidate.esm_class === 0);
    expect((pdu.short_message as { message: string }).message).to.equal('Привет from a phone');
    expect(pdu.data_coding).to.equal(8);
    expect(pdu.source_addr).to.equal('79990001122');
    // The gateway does not know the phone's own number: the phone's name and the SIM slot it came in on.
    expect(pdu.destination_addr).to.equal('Front des/0');
    expect(pdu.dest_addr_ton).to.equal(5);
  });

  it('cuts a long or non-ASCII device name to an alphanumeric address of 11 printable ASCII characters', () => {
    expect(receivingAddress('Front desk', 0)).to.equal('Front des/0');
    expect(receivingAddress('Front desk', null)).to.equal('Front desk');
    expect(receivingAddress('Телефон', 1)).to.equal('_______/1');
    expect(receivingAddress('Pixel', 1)).to.equal('Pixel/1');
    expect(receivingAddress('A very long device name indeed', 2)).to.equal('A very lo/2');
    expect(receivingAddress('  ', null)).to.equal('phone');
  });

  it('delivers a receipt stored before a restart once the gateway is started again on the same database', async function () {
    if (!testDatabaseUrl()) this.skip(); // the embedded database of a test lives in memory: a restart empties it
    const second = await fx.startGateway({ smpp: SMPP_ON });
    const credential = await issueCredential(fx.tenant);
    const { device, token } = await second.services.devices.register(fx.tenant.accountId, 'restart-phone');
    const { SimulatedDevice } = await import('../../src/simulator/device.ts');
    const phone = new SimulatedDevice({ brokerUrl: `mqtt://127.0.0.1:${second.mqttPort}`, deviceId: device.id, token, reconnectPeriodMs: 100 });
    fx.track(phone);
    await phone.connect();
    const transmitter = await bindEsme(second, credential, 'bind_transmitter');
    opened.push(transmitter);
    const id = await submit(transmitter, 'survives a restart');
    await eventually('the receipt is stored', async () => ((await second.services.smpp.countPending()) > 0 ? true : undefined));
    await phone.stop();
    transmitter.close();
    await second.stop();

    const third = await fx.startGateway({ smpp: SMPP_ON });
    const receiver = await bindEsme(third, credential, 'bind_receiver');
    opened.push(receiver);
    expect(readReceipt((await receiver.receiptOf(id)) as never)).to.include({ id, stat: 'DELIVRD' });
  });
});
