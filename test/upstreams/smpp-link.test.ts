// The SMPP upstream link against an SMSC made here with the smpp package's server: binds (and
// binds again after a refusal, an unbind, a dropped socket, a silent line), submissions in GSM-7,
// UCS-2 and in parts, the window and the throughput, the SMSC's refusals, receipts and incoming
// SMS, and close().
import { expect } from 'chai';
import smpp, { type PDU } from 'smpp';
import { ManualClock } from '../../src/common/clock.ts';
import { createLogger } from '../../src/common/logger.ts';
import type { LinkStatus, UpstreamIncoming, UpstreamReceipt, UpstreamSubmission } from '../../src/modules/upstreams/links/link.ts';
import { SmppLink, type SmppLinkOptions, type SmppLinkSettings } from '../../src/modules/upstreams/links/smpp/index.ts';
import { DestinationGuard } from '../../src/modules/webhooks/outbound/destination-guard.ts';
import { readFileSync } from 'node:fs';
import { eventually } from '../support/eventually.ts';
import { certificateDirectory, makeCertificate } from '../tls/tls-support.ts';
import { issueCredential, SMPP_ON } from '../support/smpp-client.ts';
import { useGateway } from '../support/use-gateway.ts';
import { ESME_RINVDSTADR, ESME_RINVPASWD, ESME_RSYSERR, ESME_RTHROTTLED, TestSmsc } from '../support/test-smsc.ts';

/** What the link told its owner. */
class Heard {
  readonly receipts: UpstreamReceipt[] = [];
  readonly incoming: UpstreamIncoming[] = [];
  readonly states: LinkStatus[] = [];
  readonly events = {
    receipt: (receipt: UpstreamReceipt) => void this.receipts.push(receipt),
    incoming: (message: UpstreamIncoming) => void this.incoming.push(message),
    stateChanged: (status: LinkStatus) => void this.states.push(status),
  };
}

describe('SMPP upstream link against an SMSC', function () {
  this.timeout(20_000);
  let smsc: TestSmsc;
  const links: SmppLink[] = [];
  const logLines: string[] = [];
  const logger = createLogger('debug', { write: (line: string) => void logLines.push(line) }, undefined, 'json');

  beforeEach(async () => {
    smsc = await TestSmsc.start();
    logLines.length = 0;
  });

  afterEach(async () => {
    await Promise.all(links.splice(0).map((link) => link.close()));
    await smsc.stop();
  });

  function settings(overrides: Partial<SmppLinkSettings> = {}): SmppLinkSettings {
    return { host: '127.0.0.1', port: overrides.port ?? smsc.port, tls: false, systemId: 'gateway', password: 'secret', systemType: 'SMSGW', sourceAddr: 'MyShop', ...overrides };
  }

  async function ready(overrides: Partial<SmppLinkSettings> = {}, options?: SmppLinkOptions): Promise<{ link: SmppLink; heard: Heard }> {
    const heard = new Heard();
    const link = new SmppLink(settings(overrides), heard.events, logger, options);
    links.push(link);
    await eventually('the link is ready', () => link.status.state === 'ready');
    return { link, heard };
  }

  function sms(text: string, extra: Partial<UpstreamSubmission> = {}): UpstreamSubmission {
    return { smsId: 'sms-1', phone: '+79161234567', text, wantsReceipt: true, ...extra };
  }

  const messageOf = (pdu: PDU) => (pdu.short_message as { message: string }).message;

  it('binds as a transceiver with its system_id, password and system_type, and says it is ready', async () => {
    const { heard } = await ready();
    expect(smsc.binds).to.have.length(1);
    expect(smsc.binds[0]).to.include({ command: 'bind_transceiver', system_id: 'gateway', password: 'secret', system_type: 'SMSGW', interface_version: 0x34 });
    expect(heard.states.map((status) => status.state)).to.deep.equal(['ready']);
  });

  it('binds a transmitter and a receiver in transmitter_receiver mode, receipts coming on the receiver', async () => {
    const { link, heard } = await ready({ bindMode: 'transmitter_receiver' });
    await eventually('both binds', () => smsc.binds.length === 2);
    expect(smsc.binds.map((pdu) => pdu.command).sort()).to.deep.equal(['bind_receiver', 'bind_transmitter']);
    const outcome = await link.submit(sms('hello'));
    expect(outcome).to.deep.include({ accepted: true });
    const receiverSession = smsc.sessions[smsc.binds.findIndex((pdu) => pdu.command === 'bind_receiver')]!;
    receiverSession.deliver_sm({ esm_class: 4, short_message: 'id:m1 sub:001 dlvrd:001 submit date:2611291200 done date:2611291201 stat:DELIVRD err:000 text:hello' });
    await eventually('the receipt', () => heard.receipts.length === 1);
  });

  it('submits a GSM-7 text as data_coding 0 with its addresses, receipt request and validity period', async () => {
    const { link } = await ready();
    const validUntil = new Date('2026-12-01T10:20:30Z');
    const outcome = await link.submit(sms('Hello {world} €5 @ ÄÖ', { validUntil }));
    expect(outcome).to.deep.equal({ accepted: true, providerIds: ['m1'], segments: 1 });
    const pdu = smsc.submits[0]!;
    expect(pdu).to.include({ data_coding: 0, esm_class: 0, registered_delivery: 1, destination_addr: '79161234567', dest_addr_ton: 1, dest_addr_npi: 1 });
    expect(pdu).to.include({ source_addr: 'MyShop', source_addr_ton: 5, source_addr_npi: 0 });
    expect(messageOf(pdu)).to.equal('Hello {world} €5 @ ÄÖ');
    expect((pdu.validity_period as Date).toISOString()).to.equal('2026-12-01T10:20:30.000Z');

    await link.submit(sms('no receipt', { from: '+15550002222', wantsReceipt: false }));
    expect(smsc.submits[1]).to.include({ source_addr: '15550002222', source_addr_ton: 1, source_addr_npi: 1, registered_delivery: 0, validity_period: '' });
  });

  it('submits a text with a character outside GSM-7 as UCS-2 (data_coding 8)', async () => {
    const { link } = await ready();
    const outcome = await link.submit(sms('Привет 👋'));
    expect(outcome).to.deep.include({ accepted: true, segments: 1 });
    expect(smsc.submits[0]).to.include({ data_coding: 8 });
    expect(messageOf(smsc.submits[0]!)).to.equal('Привет 👋');
  });

  it('submits a long text in parts, each with a concatenation header the SMSC puts back together', async () => {
    const { link } = await ready();
    const text = 'The quick brown fox jumps over the lazy dog. '.repeat(8).trim();
    const outcome = await link.submit(sms(text));
    expect(outcome).to.deep.equal({ accepted: true, providerIds: ['m1', 'm2', 'm3'], segments: 3 });
    const parts = smsc.submits.map((pdu) => {
      expect(pdu.esm_class & 0x40).to.equal(0x40);
      const udh = (pdu.short_message as { udh: Buffer[] }).udh[0]!;
      expect([...udh.subarray(0, 2)]).to.deep.equal([0x00, 3]);
      return { reference: udh[2]!, total: udh[3]!, seq: udh[4]!, text: messageOf(pdu) };
    });
    expect(new Set(parts.map((part) => part.reference)).size).to.equal(1);
    expect(parts.map((part) => `${part.seq}/${part.total}`)).to.deep.equal(['1/3', '2/3', '3/3']);
    expect(parts.map((part) => part.text).join('')).to.equal(text);

    const ucs2 = 'Ж'.repeat(66) + '👋' + 'Ж'.repeat(10);
    expect(await link.submit(sms(ucs2))).to.deep.include({ accepted: true, segments: 2 });
    const [first, second] = smsc.submits.slice(3).map(messageOf);
    expect(first).to.equal('Ж'.repeat(66), 'a surrogate pair is never cut in two');
    expect(first! + second!).to.equal(ucs2);
  });

  it('never has more submit_sm awaiting an answer than its window', async () => {
    const { link } = await ready({ windowSize: 3, throughputPerSecond: 1000 });
    smsc.answer = () => 'hold';
    const outcomes = Array.from({ length: 10 }, (_, i) => link.submit(sms(`message ${i}`)));
    await eventually('the window is full', () => smsc.held.length === 3);
    expect(link.outstanding).to.equal(3);
    while (smsc.submits.length < 10) {
      const before = smsc.submits.length;
      smsc.release(1);
      await eventually('the next submit_sm', () => smsc.submits.length === before + 1);
      expect(smsc.held.length).to.be.at.most(3);
    }
    smsc.release();
    const settled = await Promise.all(outcomes);
    expect(settled.every((outcome) => outcome.accepted)).to.equal(true);
    expect(smsc.mostOutstanding).to.equal(3);
    expect(smsc.submits.map(messageOf)).to.deep.equal(Array.from({ length: 10 }, (_, i) => `message ${i}`), 'in the order submitted');
  });

  it('sends no faster than its throughput, by the clock it is given', async () => {
    const clock = new ManualClock(Date.parse('2026-11-29T12:00:00Z'));
    // 20 a second: a burst of 2, then one every 50 ms of the clock.
    const { link } = await ready({ throughputPerSecond: 20 }, { clock });
    const outcomes = Array.from({ length: 12 }, (_, i) => link.submit(sms(`message ${i}`)));
    await eventually('the burst', () => smsc.submits.length === 2);
    // The clock stands still: nothing more may go, however long the wall clock runs.
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(smsc.submits).to.have.length(2);
    for (let step = 1; step <= 10; step++) {
      clock.advance(50);
      await eventually(`submission ${step + 2}`, () => smsc.submits.length === step + 2, 2_000);
      expect(smsc.submits.length).to.equal(step + 2);
    }
    expect((await Promise.all(outcomes)).every((outcome) => outcome.accepted)).to.equal(true);
  });

  it('answers ESME_RTHROTTLED with a refusal to retry later, throttled for a moment, then takes the next', async () => {
    const { link, heard } = await ready();
    smsc.answer = (_, index) => (index === 0 ? ESME_RTHROTTLED : 0);
    const refused = await link.submit(sms('first'));
    expect(refused).to.deep.include({ accepted: false, retry: 'later', code: '0x00000058' });
    expect((refused as { retryAfterMs: number }).retryAfterMs).to.be.greaterThan(0);
    expect(link.status.state).to.equal('throttled');
    const accepted = await link.submit(sms('first'));
    expect(accepted).to.deep.include({ accepted: true });
    await eventually('ready again', () => link.status.state === 'ready');
    expect(heard.states.map((status) => status.state)).to.deep.equal(['ready', 'throttled', 'ready']);
  });

  it('refuses for good what the SMSC says is wrong with the SMS, and for later what is wrong with the SMSC', async () => {
    const { link } = await ready();
    smsc.answer = (pdu) => (pdu.destination_addr === '1' ? ESME_RINVDSTADR : ESME_RSYSERR);
    expect(await link.submit(sms('x', { phone: '+1' }))).to.deep.include({ accepted: false, retry: 'never', code: '0x0000000b' });
    expect(await link.submit(sms('x'))).to.deep.include({ accepted: false, retry: 'later', code: '0x00000008' });
  });

  it('answers unknown for an SMS whose later part the SMSC refused once it took the first, naming the parts it took: sent again, those parts would arrive twice', async () => {
    const { link } = await ready();
    smsc.answer = (_, index) => (index === 1 ? ESME_RSYSERR : 0);
    const outcome = await link.submit(sms('x'.repeat(400)));
    expect(outcome).to.deep.include({ accepted: false, retry: 'unknown', code: '0x00000008' });
    expect((outcome as { detail: string }).detail).to.include('part 2 of 3').and.include('m1');
    expect(smsc.submits, 'the third part is not sent').to.have.length(2);
  });

  it('maps delivery receipts: the text\'s id and stat, or the receipted_message_id and message_state TLVs', async () => {
    const { heard } = await ready();
    smsc.deliver({ esm_class: 4, short_message: 'id:m7 sub:001 dlvrd:001 submit date:2611291200 done date:2611291201 stat:DELIVRD err:000 text:Hello' });
    smsc.deliver({ esm_class: 4, short_message: 'id:m8 sub:001 dlvrd:000 submit date:2611291200 done date:2611291201 stat:UNDELIV err:034 text:' });
    smsc.deliver({ esm_class: 4, receipted_message_id: 'm9', message_state: 3, short_message: 'stat:EXPIRED' });
    smsc.deliver({ esm_class: 4, short_message: 'id:m10 sub:001 dlvrd:000 submit date:2611291200 done date:2611291201 stat:REJECTD err:011 text:' });
    smsc.deliver({ esm_class: 4, short_message: 'id:m11 sub:001 dlvrd:000 submit date:2611291200 done date:2611291200 stat:ENROUTE err:000 text:' });
    await eventually('five receipts', () => heard.receipts.length === 5);
    expect(heard.receipts.map(({ providerId, outcome, providerStatus, errorCode }) => ({ providerId, outcome, providerStatus, errorCode }))).to.deep.equal([
      { providerId: 'm7', outcome: 'delivered', providerStatus: 'DELIVRD', errorCode: '000' },
      { providerId: 'm8', outcome: 'undelivered', providerStatus: 'UNDELIV', errorCode: '034' },
      { providerId: 'm9', outcome: 'failed_delivery', providerStatus: 'EXPIRED', errorCode: null },
      { providerId: 'm10', outcome: 'failed_delivery', providerStatus: 'REJECTD', errorCode: '011' },
      { providerId: 'm11', outcome: 'sent', providerStatus: 'ENROUTE', errorCode: '000' },
    ]);
    await eventually('every deliver_sm answered', () => smsc.deliverResponses.length === 5);
    expect(smsc.deliverResponses.every((pdu) => pdu.command_status === 0)).to.equal(true);
  });

  it('answers submit() before it tells the receipt that came in the same read as the submit_sm_resp', async () => {
    const { link, heard } = await ready();
    smsc.receiptWithResponse = true;
    const order: string[] = [];
    const told = heard.events.receipt;
    heard.events.receipt = (receipt) => (order.push(`receipt ${receipt.providerId}`), told(receipt));
    const outcome = await link.submit(sms('fast')).then((answer) => (order.push('answered'), answer));
    expect(outcome).to.deep.include({ accepted: true, providerIds: ['m1'] });
    await eventually('the receipt', () => heard.receipts.length === 1);
    expect(order).to.deep.equal(['answered', 'receipt m1']);
  });

  it('tells an incoming SMS, single and in parts (by header and by sar TLVs), once whole', async () => {
    const { heard } = await ready();
    smsc.deliver({ short_message: 'Hi there' });
    await eventually('the single SMS', () => heard.incoming.length === 1);
    expect(heard.incoming[0]).to.deep.include({ from: '+79161234567', to: '+15550001111', text: 'Hi there' });

    const ucs2 = (text: string) => Buffer.from(text, 'utf16le').swap16();
    const header = (seq: number) => Buffer.from([5, 0, 3, 42, 2, seq]);
    smsc.deliver({ esm_class: 0x40, data_coding: 8, short_message: Buffer.concat([header(2), ucs2(' world')]) });
    smsc.deliver({ esm_class: 0x40, data_coding: 8, short_message: Buffer.concat([header(1), ucs2('Привет')]) });
    await eventually('the SMS in parts', () => heard.incoming.length === 2);
    expect(heard.incoming[1]!.text).to.equal('Привет world');

    smsc.deliver({ data_coding: 0, short_message: Buffer.from('first '), sar_msg_ref_num: 300, sar_total_segments: 2, sar_segment_seqnum: 1 });
    smsc.deliver({ data_coding: 0, short_message: Buffer.from('second'), sar_msg_ref_num: 300, sar_total_segments: 2, sar_segment_seqnum: 2 });
    await eventually('the SMS by sar TLVs', () => heard.incoming.length === 3);
    expect(heard.incoming[2]!.text).to.equal('first second');
    await eventually('every deliver_sm answered', () => smsc.deliverResponses.length === 5);
  });

  it('answers a PDU it cannot read and one it does not know, and goes on reading', async () => {
    const { heard } = await ready();
    const nacks: PDU[] = [];
    smsc.session.on('generic_nack', (pdu: PDU) => nacks.push(pdu));
    // A deliver_sm whose last TLV (sar_total_segments, one octet) says it is there and is not.
    const good = new smpp.PDU('deliver_sm', { sequence_number: 90, source_addr: '1', destination_addr: '2', short_message: 'x' }).toBuffer();
    const broken = Buffer.concat([good, Buffer.from([0x02, 0x0e, 0x00, 0x01])]);
    broken.writeUInt32BE(broken.length, 0);
    const unknown = Buffer.alloc(16);
    unknown.writeUInt32BE(16, 0);
    unknown.writeUInt32BE(0x00000077, 4);
    unknown.writeUInt32BE(91, 12);
    smsc.session.socket.write(Buffer.concat([broken, unknown]));
    smsc.deliver({ short_message: 'still heard' });
    await eventually('the SMS after them', () => heard.incoming.length === 1);
    expect(heard.incoming[0]!.text).to.equal('still heard');
    await eventually('both answered', () => smsc.deliverResponses.some((pdu) => pdu.sequence_number === 90) && nacks.length === 1);
    expect(smsc.deliverResponses.find((pdu) => pdu.sequence_number === 90)!.command_status).to.equal(0x02);
    expect(nacks[0]).to.include({ sequence_number: 91, command_status: 0x03 });
  });

  it('is down naming a refused bind, and binds once the SMSC takes its password', async () => {
    smsc.password = 'other';
    const heard = new Heard();
    const link = new SmppLink(settings(), heard.events, logger);
    links.push(link);
    await eventually('down', () => link.status.state === 'down');
    expect(link.status.detail).to.include('ESME_RINVPASWD').and.include('0x0000000e');
    expect(await link.submit(sms('x'))).to.deep.include({ accepted: false, retry: 'later', code: 'not_bound' });
    smsc.password = 'secret';
    await eventually('ready', () => link.status.state === 'ready', 5_000);
    expect(smsc.binds.length).to.be.at.least(2);
  });

  it('binds again after the SMSC unbinds, and after it drops the connection', async () => {
    const { link } = await ready();
    smsc.session.unbind();
    await eventually('down after the unbind', () => link.status.state === 'down');
    await eventually('bound again', () => link.status.state === 'ready' && smsc.binds.length === 2, 5_000);
    smsc.session.destroy();
    await eventually('down after the drop', () => link.status.state === 'down');
    await eventually('bound a third time', () => link.status.state === 'ready' && smsc.binds.length === 3, 5_000);
    expect(await link.submit(sms('after'))).to.deep.include({ accepted: true });
  });

  it('drops a line whose enquire_link goes unanswered and binds again', async () => {
    const { link } = await ready({ enquireLinkSeconds: 1, responseTimeoutMs: 300 });
    smsc.answerEnquireLinks = false;
    await eventually('down', () => link.status.state === 'down', 3_000);
    expect(link.status.detail).to.include('enquire_link');
    smsc.answerEnquireLinks = true;
    await eventually('bound again', () => link.status.state === 'ready' && smsc.binds.length === 2, 5_000);
  });

  it('answers at once, to retry later, while it cannot reach the SMSC', async () => {
    const port = smsc.port;
    await smsc.stop();
    const heard = new Heard();
    const link = new SmppLink(settings({ port }), heard.events, logger);
    links.push(link);
    await eventually('down', () => link.status.state === 'down');
    expect(link.status.detail).to.include('cannot connect');
    expect(await link.submit(sms('x'))).to.deep.include({ accepted: false, retry: 'later', code: 'not_bound' });
    smsc = await TestSmsc.start();
  });

  it('binds over TLS to an SMSC whose certificate it is given, and refuses one it cannot trust', async () => {
    const certificates = certificateDirectory();
    const plain = smsc;
    try {
      const certificate = makeCertificate(certificates.directory, 'smsc');
      smsc = await TestSmsc.start({ key: readFileSync(certificate.keyFile), cert: readFileSync(certificate.certFile) });
      const untrusting = new SmppLink(settings({ tls: true, host: 'localhost' }), new Heard().events, logger);
      links.push(untrusting);
      await eventually('down', () => untrusting.status.state === 'down');
      expect(untrusting.status.detail).to.match(/certificate/i);
      expect(smsc.binds).to.have.length(0);
      const { link } = await ready({ tls: true, host: 'localhost', ca: certificate.pem });
      expect(await link.submit(sms('over TLS'))).to.deep.include({ accepted: true });
      expect(messageOf(smsc.submits[0]!)).to.equal('over TLS');
    } finally {
      await Promise.all(links.splice(0).map((link) => link.close()));
      await smsc.stop();
      smsc = plain;
      certificates.remove();
    }
  });

  it('refuses a loopback SMSC, by address and by host name, unless WEBHOOK_ALLOWED_HOSTS allows it, and keeps trying', async () => {
    const unallowed = new DestinationGuard([]);
    const byAddress = new SmppLink(settings(), new Heard().events, logger, { guard: unallowed });
    const byName = new SmppLink(settings({ host: 'localhost' }), new Heard().events, logger, { guard: unallowed });
    links.push(byAddress, byName);
    await eventually('both down', () => byAddress.status.state === 'down' && byName.status.state === 'down');
    for (const link of [byAddress, byName]) {
      expect(link.status.detail).to.include('WEBHOOK_ALLOWED_HOSTS');
      expect(await link.submit(sms('x'))).to.deep.include({ accepted: false, retry: 'later', code: 'not_bound' });
    }
    expect(smsc.sessions, 'no connection reached the SMSC').to.have.length(0);

    // The guard is asked at every attempt: once it allows the address, the next one binds.
    let allowed = false;
    const changing = { lookup: unallowed.lookup, addressAllowed: (address: string) => allowed || unallowed.addressAllowed(address) };
    const heard = new Heard();
    const link = new SmppLink(settings(), heard.events, logger, { guard: changing });
    links.push(link);
    await eventually('down', () => link.status.state === 'down');
    allowed = true;
    await eventually('bound once allowed', () => link.status.state === 'ready', 5_000);

    const { link: allowedLink } = await ready({}, { guard: new DestinationGuard(['127.0.0.1']) });
    expect(allowedLink.status.state).to.equal('ready');
  });

  it('close() unbinds, stops binding again and answers later submissions "later"', async () => {
    const { link, heard } = await ready();
    await link.close();
    expect(smsc.unbinds).to.have.length(1);
    expect(link.status.state).to.equal('closed');
    expect(heard.states.at(-1)!.state).to.equal('closed');
    expect(await link.submit(sms('x'))).to.deep.include({ accepted: false, retry: 'later', code: 'closed' });
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    expect(smsc.binds, 'no bind after close').to.have.length(1);
  });

  it('logs no text, no full phone number and no password', async () => {
    const { link, heard } = await ready();
    await link.submit(sms('a secret text'));
    smsc.deliver({ short_message: 'incoming secret' });
    await eventually('the incoming SMS', () => heard.incoming.length === 1);
    const log = logLines.join('\n');
    expect(log).to.include('submitted to the SMSC');
    for (const secret of ['a secret text', 'incoming secret', '79161234567', '"secret"']) expect(log).not.to.include(secret);
  });
});

describe('SMPP upstream link against the gateway\'s own SMPP listener', function () {
  this.timeout(20_000);
  const fx = useGateway({ config: { smpp: SMPP_ON } });
  const logger = createLogger('silent');

  it('submits SMS the gateway creates (one in parts joined into one), and hears their receipts once a phone there delivers them', async () => {
    await fx.connectDevice();
    const credential = await issueCredential(fx.tenant);
    const heard = new Heard();
    const link = new SmppLink({ host: '127.0.0.1', port: fx.gateway.smppPort, tls: false, systemId: credential.system_id, password: credential.password, sourceAddr: 'MyShop' }, heard.events, logger);
    try {
      await eventually('the link is ready', () => link.status.state === 'ready');
      const short = await link.submit({ smsId: 'upstream-1', phone: '+79161234567', text: 'Hello from upstream €', wantsReceipt: true });
      expect(short).to.deep.include({ accepted: true, segments: 1 });
      const shortId = (short as { providerIds: string[] }).providerIds[0]!;
      const created = await fx.tenant.api.get(`/sms/${shortId}`);
      expect(created.status).to.equal(200);
      expect(created.body.message).to.equal('Hello from upstream €');

      const longText = 'Привет! '.repeat(20).trim();
      const long = await link.submit({ smsId: 'upstream-2', phone: '+79161234567', text: longText, wantsReceipt: true });
      expect(long).to.deep.include({ accepted: true, segments: 3 });
      const longIds = (long as { providerIds: string[] }).providerIds;
      expect(new Set(longIds).size, 'the gateway answers every part with its SMS id').to.equal(1);
      expect((await fx.tenant.api.get(`/sms/${longIds[0]}`)).body.message).to.equal(longText);

      await eventually('both receipts', () => heard.receipts.length >= 2, 15_000);
      const byId = new Map(heard.receipts.map((receipt) => [receipt.providerId, receipt]));
      expect(byId.get(shortId)).to.deep.include({ outcome: 'delivered', providerStatus: 'DELIVRD' });
      expect(byId.get(longIds[0]!)).to.deep.include({ outcome: 'delivered', providerStatus: 'DELIVRD' });
    } finally {
      await link.close();
    }
  });
});
