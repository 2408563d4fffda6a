// replace_sm: a new text (read in the data_coding the SMS was submitted with), schedule,
// validity and receipt wish for an SMS no phone has taken. A task already handed to a phone and
// not acknowledged is taken back and revoked before the new text is handed out, so the phone
// never sends the old text; an SMS a phone took is ESME_RREPLACEFAIL, one the ESME's account never
// submitted over SMPP ESME_RINVMSGID.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { nextDomainEvent, nextEvent } from '../support/devices.ts';
import { TaskPhone, UNPACED } from '../support/task-phone.ts';
import { bindEsme, issueCredential, SMPP_ON, type TestEsme } from '../support/smpp-client.ts';
import { eventually } from '../support/eventually.ts';
import { STATUS } from '../../src/api/smpp/command-status.ts';
import type { OutgoingSms } from '../../agent/src/radio/radio.ts';

const ucs2 = (text: string) => Buffer.from(text, 'utf16le').swap16();

describe('SMPP: replace_sm', () => {
  const fx = useGateway({ config: { smpp: SMPP_ON } });
  const opened: TestEsme[] = [];
  afterEach(() => opened.splice(0).forEach((esme) => esme.close()));

  async function esme(credentialBody: Record<string, unknown> = {}): Promise<TestEsme> {
    const bound = await bindEsme(fx.gateway, await issueCredential(fx.tenant, { throughput_per_second: 1000, window_size: 50, ...credentialBody }));
    opened.push(bound);
    return bound;
  }

  async function submit(client: TestEsme, fields: Record<string, unknown> = {}): Promise<string> {
    const response = await client.call('submit_sm', { source_addr: 'Shop', destination_addr: '+79161234567', short_message: 'old text', ...fields });
    expect(response.command_status, 'submit_sm').to.equal(STATUS.ESME_ROK);
    return response.message_id;
  }

  async function sms(id: string) {
    return (await fx.tenant.api.get(`/sms/${id}`)).body;
  }

  it('replaces the text of an SMS no phone was handed, in the coding it was submitted with, and the phone sends the new one', async () => {
    const client = await esme();
    const gsm = await submit(client);
    const replaced = await client.call('replace_sm', { message_id: gsm, source_addr: 'Shop', short_message: 'new text' });
    expect(replaced.command).to.equal('replace_sm_resp');
    expect(replaced.command_status).to.equal(STATUS.ESME_ROK);
    expect((await sms(gsm)).message).to.equal('new text');

    // UCS-2: replace_sm has no data_coding, its octets are read as the submission's.
    const unicode = await submit(client, { data_coding: 8, short_message: ucs2('Привет') });
    expect((await client.call('replace_sm', { message_id: unicode, short_message: ucs2('Пока 👋') })).command_status).to.equal(STATUS.ESME_ROK);
    expect((await sms(unicode)).message).to.equal('Пока 👋');
    // The text in message_payload, short_message empty.
    const long = 'L'.repeat(165);
    expect((await client.call('replace_sm', { message_id: unicode, short_message: Buffer.alloc(0), message_payload: ucs2(long) })).command_status).to.equal(STATUS.ESME_ROK);
    expect((await sms(unicode)).message).to.equal(long);

    const phone = await fx.taskPhone(UNPACED);
    await phone.until(2);
    expect(phone.tasks.map((task) => task.message).sort()).to.deep.equal([long, 'new text'].sort());
  });

  it('replaces schedule_delivery_time, validity_period and registered_delivery; empty times keep the SMS\'s own', async () => {
    const client = await esme();
    const id = await submit(client, { schedule_delivery_time: '000000010000000R', registered_delivery: 0 });
    const before = await sms(id);
    expect(before.send_at).to.not.equal(null);

    expect((await client.call('replace_sm', { message_id: id, short_message: 'kept times' })).command_status).to.equal(STATUS.ESME_ROK);
    expect(await sms(id)).to.include({ message: 'kept times', send_at: before.send_at, valid_until: null });

    expect((await client.call('replace_sm', { message_id: id, short_message: 'later', schedule_delivery_time: '000000020000000R', validity_period: '000000030000000R' })).command_status).to.equal(STATUS.ESME_ROK);
    const later = await sms(id);
    expect(Date.parse(later.send_at) - Date.parse(before.send_at)).to.be.within(3_500_000, 3_700_000);
    expect(Date.parse(later.valid_until) - Date.parse(later.send_at)).to.be.within(3_500_000, 3_700_000);

    // A validity before the schedule is refused; the SMS stays as it was.
    const early = await client.call('replace_sm', { message_id: id, short_message: 'x', validity_period: '000000000100000R' });
    expect(early.command_status).to.equal(STATUS.ESME_RINVEXPIRY);
    expect((await sms(id)).message).to.equal('later');

    // A past schedule sends at once, and registered_delivery 1 now asks for the receipt.
    expect((await client.call('replace_sm', { message_id: id, short_message: 'now', schedule_delivery_time: '000000000001000R', registered_delivery: 1 })).command_status).to.equal(
      STATUS.ESME_ROK,
    );
    await fx.connectDevice();
    const receipt = await client.receiptOf(id);
    expect((receipt.short_message as { message: string }).message).to.match(/stat:DELIVRD/);
    expect((await sms(id)).message).to.equal('now');
  });

  it('takes back a task handed to a phone that has not acknowledged it: the phone is told to drop it first, then handed the new text', async () => {
    const client = await esme();
    const phone = await fx.taskPhone(UNPACED);
    const heard: { topic: string; payload: { sms_id: string; message?: string; reason?: string } }[] = [];
    phone.client.on('message', (topic, payload) => heard.push({ topic: topic.split('/').pop()!, payload: JSON.parse(payload.toString()) }));
    const id = await submit(client);
    await phone.until(1);
    expect(phone.tasks[0]).to.include({ sms_id: id, message: 'old text' });

    expect((await client.call('replace_sm', { message_id: id, short_message: 'new text' })).command_status).to.equal(STATUS.ESME_ROK);
    await eventually('the new task arrived', async () => (heard.some((m) => m.topic === 'tasks' && m.payload.message === 'new text') ? true : undefined));
    const afterReplace = heard.filter((m) => m.payload.sms_id === id && !(m.topic === 'tasks' && m.payload.message === 'old text'));
    expect(afterReplace.map((m) => m.topic)).to.deep.equal(['revoke', 'tasks']);
    expect(afterReplace[0]!.payload.reason).to.equal('replaced');

    await phone.report(id, 'processing');
    await phone.report(id, 'sent');
    expect(await sms(id)).to.include({ status: 'sent', message: 'new text' });
  });

  it('answers with a revoke a phone that acknowledges the old hand-out after the replacement took it back', async () => {
    for (const named of [false, true]) {
      const phone = await fx.taskPhone(UNPACED);
      const client = await esme(named ? { device_ids: [phone.id] } : {});
      const id = await submit(client);
      await phone.until(1);
      // Scheduled an hour ahead: taken back and not handed out again before the acknowledgement.
      expect((await client.call('replace_sm', { message_id: id, short_message: 'new text', schedule_delivery_time: '000000010000000R' })).command_status).to.equal(STATUS.ESME_ROK);
      await phone.settle();
      expect(phone.revoked.get(id)).to.equal('replaced');
      phone.revoked.clear();
      await phone.report(id, 'processing');
      expect(phone.revoked.get(id), 'the revoke arrived before the acknowledgement completed').to.equal(named ? 'withdrawn' : 'reassigned');
      expect(await sms(id)).to.include({ status: 'pending', message: 'new text' });
      await phone.stop();
    }
  });

  it('never lets a phone that follows the device protocol send the old text, replaced while it held the task', async () => {
    const client = await esme();
    const device = await fx.connectDevice({ delays: { processing: 300 } });
    const sent: string[] = [];
    const send = device.radio.send.bind(device.radio);
    device.radio.send = (outgoing: OutgoingSms) => (sent.push(outgoing.message), send(outgoing));
    const id = await submit(client);
    await nextEvent(device, 'task');
    const revoked = nextEvent(device, 'revoked');
    expect((await client.call('replace_sm', { message_id: id, short_message: 'new text' })).command_status).to.equal(STATUS.ESME_ROK);
    expect((await revoked)[0]).to.equal(id);
    await eventually('delivered', async () => ((await sms(id)).status === 'delivered' ? true : undefined));
    expect(sent).to.deep.equal(['new text']);
    expect(device.sendCount.get(id)).to.equal(1);
  });

  it('refuses an SMS a phone took (ESME_RREPLACEFAIL), one whose phone is offline with its task, and a foreign source_addr', async () => {
    const client = await esme();
    const phone = await fx.taskPhone(UNPACED);
    const taken = await submit(client);
    await phone.until(1);
    await phone.report(taken, 'processing');
    expect((await client.call('replace_sm', { message_id: taken, short_message: 'too late' })).command_status).to.equal(STATUS.ESME_RREPLACEFAIL);

    const held = await submit(client);
    await phone.until(2);
    const gone = nextDomainEvent(fx.gateway.services.events, 'device.offline', (event) => event.deviceId === phone.id);
    phone.kill();
    await gone;
    expect((await client.call('replace_sm', { message_id: held, short_message: 'cannot tell it' })).command_status).to.equal(STATUS.ESME_RREPLACEFAIL);
    expect((await client.call('replace_sm', { message_id: held, source_addr: 'Other', short_message: 'x' })).command_status).to.equal(STATUS.ESME_RINVSRCADR);

    const cancelled = await submit(client);
    expect((await client.call('cancel_sm', { message_id: cancelled })).command_status).to.equal(STATUS.ESME_ROK);
    expect((await client.call('replace_sm', { message_id: cancelled, short_message: 'ended' })).command_status).to.equal(STATUS.ESME_RREPLACEFAIL);
    expect((await sms(held)).message).to.equal('old text');
  });

  it('answers ESME_RINVMSGID for an id it never gave, another account\'s SMS, and an SMS not submitted over SMPP', async () => {
    const client = await esme();
    for (const messageId of ['not-an-id', '5b0c3f0e-8d55-4a57-9a0f-0b6f8e2c1d11']) {
      expect((await client.call('replace_sm', { message_id: messageId, short_message: 'x' })).command_status).to.equal(STATUS.ESME_RINVMSGID);
    }
    const other = await fx.newTenant();
    const stranger = await bindEsme(fx.gateway, await issueCredential(other));
    opened.push(stranger);
    const theirs = await submit(stranger);
    expect((await client.call('replace_sm', { message_id: theirs, short_message: 'x' })).command_status).to.equal(STATUS.ESME_RINVMSGID);
    const overApi = await fx.tenant.api.post('/sms', { phone: '+79161234567', message: 'from the API' });
    expect((await client.call('replace_sm', { message_id: overApi.body.id, short_message: 'x' })).command_status).to.equal(STATUS.ESME_RINVMSGID);
    // The session is still there.
    expect((await client.call('enquire_link')).command_status).to.equal(STATUS.ESME_ROK);
  });

  it('checks the new text as submit_sm does, and takes replace_sm only from a transmitter or transceiver', async () => {
    const client = await esme();
    const id = await submit(client);
    expect((await client.call('replace_sm', { message_id: id, short_message: Buffer.alloc(0) })).command_status).to.equal(STATUS.ESME_RINVMSGLEN);
    expect((await client.call('replace_sm', { message_id: id, short_message: Buffer.from('x'.repeat(171)) })).command_status).to.equal(STATUS.ESME_RINVMSGLEN);
    expect((await client.call('replace_sm', { message_id: id, short_message: 'x', registered_delivery: 3 })).command_status).to.equal(STATUS.ESME_RINVREGDLVFLG);
    const receiver = await bindEsme(fx.gateway, await issueCredential(fx.tenant), 'bind_receiver');
    opened.push(receiver);
    expect((await receiver.call('replace_sm', { message_id: id, short_message: 'x' })).command_status).to.equal(STATUS.ESME_RINVBNDSTS);
    expect((await sms(id)).message).to.equal('old text');
  });
});
