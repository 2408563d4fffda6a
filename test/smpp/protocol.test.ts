// The session itself: enquire_link both ways (a peer that stops answering is closed), unbind,
// generic_nack for unknown commands and for bytes that are not a PDU (the server stays up),
// requests before a bind, the throughput limit and the window, query_sm, cancel_sm, submit_multi.
import { expect } from 'chai';
import { connect } from 'node:net';
import { ManualClock } from '../../src/common/clock.ts';
import { useGateway } from '../support/use-gateway.ts';
import { eventually } from '../support/eventually.ts';
import { bindEsme, issueCredential, SMPP_ON, TestEsme } from '../support/smpp-client.ts';
import { STATUS } from '../../src/api/smpp/command-status.ts';
import { MESSAGE_STATE } from '../../src/modules/smpp/message-state.ts';

/** Writes raw bytes to the SMPP port; resolves with what came back before the server closed (or 1 s passed). */
function rawExchange(port: number, bytes: Buffer): Promise<{ answer: Buffer; closed: boolean }> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const socket = connect(port, '127.0.0.1', () => socket.write(bytes));
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ answer: Buffer.concat(chunks), closed: false });
    }, 1_000);
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ answer: Buffer.concat(chunks), closed: true });
    });
  });
}

function header(length: number, commandId: number, sequence: number): Buffer {
  const buffer = Buffer.alloc(16);
  buffer.writeUInt32BE(length, 0);
  buffer.writeUInt32BE(commandId, 4);
  buffer.writeUInt32BE(0, 8);
  buffer.writeUInt32BE(sequence, 12);
  return buffer;
}

describe('SMPP: the session', () => {
  const fx = useGateway({ config: { smpp: { ...SMPP_ON, enquireLinkMs: 300 } } });
  const opened: TestEsme[] = [];
  afterEach(() => opened.splice(0).forEach((esme) => esme.close()));

  async function bound(body: Record<string, unknown> = {}, mode?: string): Promise<TestEsme> {
    const esme = await bindEsme(fx.gateway, await issueCredential(fx.tenant, body), mode);
    opened.push(esme);
    return esme;
  }

  it('answers enquire_link, sends its own, and closes a peer that stops answering', async () => {
    const esme = await bound();
    expect((await esme.call('enquire_link')).command_status).to.equal(STATUS.ESME_ROK);
    await esme.next((pdu) => pdu.command === 'enquire_link', 2_000);
    esme.answerEnquireLinks = false;
    await esme.closed;
  });

  it('keeps a peer whose answer to enquire_link arrived while the gateway was busy', async () => {
    const esme = await bound();
    // Answered at once by the ESME: the answer is on the gateway's socket, not yet read.
    await esme.next((pdu) => pdu.command === 'enquire_link', 2_000);
    // The gateway shares this process: blocking it past twice the interval makes its next check
    // run late, before the answer is read, as a long query or a burst of work would.
    const busyUntil = Date.now() + 3 * 300;
    while (Date.now() < busyUntil);
    await esme.next((pdu) => pdu.command === 'enquire_link', 2_000);
    expect((await esme.call('enquire_link')).command_status).to.equal(STATUS.ESME_ROK);
  });

  it('unbinds on request, answering unbind_resp', async () => {
    const esme = await bound();
    expect((await esme.call('unbind')).command_status).to.equal(STATUS.ESME_ROK);
    await esme.closed;
  });

  it('answers an unknown command with generic_nack ESME_RINVCMDID and keeps the session', async () => {
    // Then an enquire_link on the same connection: its answer shows the session is still up.
    const { answer } = await rawExchange(fx.gateway.smppPort, Buffer.concat([header(16, 0x00000077, 42), header(16, 0x00000015, 43)]));
    expect(answer.readUInt32BE(4)).to.equal(0x80000000);
    expect(answer.readUInt32BE(8)).to.equal(STATUS.ESME_RINVCMDID);
    expect(answer.readUInt32BE(12)).to.equal(42);
    expect(answer.readUInt32BE(20)).to.equal(0x80000015);
    expect(answer.readUInt32BE(28)).to.equal(43);
  });

  it('answers bytes that are not a PDU with generic_nack, closes that connection, and stays up', async () => {
    for (const garbage of [Buffer.from('GET / HTTP/1.1\r\nHost: x\r\n\r\n'), header(8, 0x00000015, 1), header(0xffffffff, 0x00000004, 1)]) {
      const { answer, closed } = await rawExchange(fx.gateway.smppPort, garbage);
      expect(closed).to.equal(true);
      if (answer.length >= 16) expect(answer.readUInt32BE(4)).to.equal(0x80000000);
    }
    // A bind whose system_id never ends: read as far as it goes, and refused.
    const { answer } = await rawExchange(fx.gateway.smppPort, Buffer.from([0, 0, 0, 20, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 1, 0xff, 0xff, 0xff, 0xff]));
    expect(answer.readUInt32BE(8)).to.not.equal(STATUS.ESME_ROK);
    const esme = await bound();
    expect((await esme.call('enquire_link')).command_status).to.equal(STATUS.ESME_ROK);
    expect(fx.gateway.services.metrics.value('smpp_pdus_total', { command: 'unreadable', status: 'ESME_RINVCMDLEN' })).to.be.at.least(1);
  });

  it('refuses requests before a bind with ESME_RINVBNDSTS', async () => {
    const esme = await TestEsme.connect(fx.gateway.smppPort);
    opened.push(esme);
    expect((await esme.call('submit_sm', { destination_addr: '+79161234567', short_message: 'x' })).command_status).to.equal(STATUS.ESME_RINVBNDSTS);
    expect((await esme.call('query_sm', { message_id: 'x' })).command_status).to.equal(STATUS.ESME_RINVBNDSTS);
  });

  it('answers ESME_RTHROTTLED to submissions past the window', async () => {
    const esme = await bound({ throughput_per_second: 1000, window_size: 1 });
    const statuses = await Promise.all(Array.from({ length: 4 }, () => esme.call('submit_sm', { destination_addr: '+79161234567', short_message: 'x' }).then((pdu) => pdu.command_status)));
    expect(statuses).to.include(STATUS.ESME_ROK);
    expect(statuses).to.include(STATUS.ESME_RTHROTTLED);
  });

  it('answers query_sm with the message_state, cancels with cancel_sm, and refuses unknown ids', async () => {
    const esme = await bound();
    const { message_id: id } = await esme.call('submit_sm', { destination_addr: '+79161234567', short_message: 'x' });
    const queried = await esme.call('query_sm', { message_id: id });
    expect(queried.command_status).to.equal(STATUS.ESME_ROK);
    expect(queried.message_state).to.equal(MESSAGE_STATE.ENROUTE);
    expect((await esme.call('cancel_sm', { message_id: id, destination_addr: '+79161234567' })).command_status).to.equal(STATUS.ESME_ROK);
    const after = await esme.call('query_sm', { message_id: id });
    expect(after.message_state).to.equal(MESSAGE_STATE.DELETED);
    expect(after.final_date).to.not.equal('');
    expect((await fx.tenant.api.get(`/sms/${id}`)).body).to.include({ status: 'failed_send', reason: 'cancelled' });
    expect((await esme.call('query_sm', { message_id: '00000000-0000-4000-8000-000000000000' })).command_status).to.equal(STATUS.ESME_RQUERYFAIL);
    expect((await esme.call('query_sm', { message_id: 'nope' })).command_status).to.equal(STATUS.ESME_RINVMSGID);
    expect((await esme.call('cancel_sm', { message_id: '00000000-0000-4000-8000-000000000000' })).command_status).to.equal(STATUS.ESME_RCANCELFAIL);
    // Another account's SMS is not found.
    const other = await fx.newTenant();
    const theirs = await bindEsme(fx.gateway, await issueCredential(other));
    opened.push(theirs);
    expect((await theirs.call('query_sm', { message_id: id })).command_status).to.equal(STATUS.ESME_RQUERYFAIL);
  });

  it('submit_multi makes one SMS per destination and lists the refused ones', async () => {
    const esme = await bound();
    const response = await esme.call('submit_multi', {
      dest_address: [{ dest_addr_ton: 1, destination_addr: '79161234567' }, { destination_addr: '+79161234568' }, { destination_addr: 'nonsense' }, { dl_name: 'list' }],
      short_message: 'to many',
    });
    expect(response.command_status).to.equal(STATUS.ESME_ROK);
    expect(response.unsuccess_sme.map((sme: { error_status_code: number }) => sme.error_status_code)).to.deep.equal([STATUS.ESME_RINVDSTADR, STATUS.ESME_RINVDSTADR]);
    const list = await fx.tenant.api.get('/sms?limit=10');
    expect(list.body.data.map((sms: { phone: string }) => sms.phone).sort()).to.deep.equal(['+79161234567', '+79161234568']);
  });
});

describe('SMPP: connections from one address', () => {
  const fx = useGateway({ config: { smpp: SMPP_ON }, tenant: 'none' });

  it('closes connections past the limit per address at once, and takes new ones once others close', async () => {
    const { SMPP_MAX_CONNECTIONS_PER_ADDRESS } = await import('../../src/modules/smpp/listener-feature.ts');
    const sockets = await Promise.all(
      Array.from({ length: SMPP_MAX_CONNECTIONS_PER_ADDRESS }, () => new Promise<ReturnType<typeof connect>>((resolve) => {
        const socket = connect(fx.gateway.smppPort, '127.0.0.1', () => resolve(socket));
        socket.on('error', () => undefined);
      })),
    );
    try {
      // No wait needed: the gateway takes connections in the order they were made.
      const { closed } = await rawExchange(fx.gateway.smppPort, header(16, 0x00000015, 1));
      expect(closed).to.equal(true);
      expect(fx.gateway.services.metrics.value('smpp_connections_refused_total', { reason: 'per_address' })).to.be.at.least(1);
    } finally {
      sockets.forEach((socket) => socket.destroy());
    }
    // The gateway hears the closes a moment later: a new connection is taken once it has.
    const answer = await eventually('a connection taken once the others closed', async () => {
      const { answer } = await rawExchange(fx.gateway.smppPort, header(16, 0x00000015, 2));
      return answer.length >= 8 ? answer : undefined;
    });
    expect(answer.readUInt32BE(4)).to.equal(0x80000015);
  });
});

// The credential's token bucket refills on the gateway's clock: the test moves it a second on
// instead of waiting one, and without the move the bucket stays empty.
describe('SMPP: the throughput limit (a manual clock)', () => {
  const clock = new ManualClock();
  const fx = useGateway({ clock, config: { smpp: SMPP_ON } });
  const opened: TestEsme[] = [];
  afterEach(() => opened.splice(0).forEach((esme) => esme.close()));

  const submit = (esme: TestEsme) => esme.call('submit_sm', { destination_addr: '+79161234567', short_message: 'x' }).then((pdu) => pdu.command_status);

  it('answers ESME_RTHROTTLED past the throughput limit, and again within it a second later', async () => {
    const esme = await bindEsme(fx.gateway, await issueCredential(fx.tenant, { throughput_per_second: 2 }));
    opened.push(esme);
    const statuses = await Promise.all(Array.from({ length: 5 }, () => submit(esme)));
    expect(statuses.filter((status) => status === STATUS.ESME_ROK)).to.have.length(2);
    expect(statuses.filter((status) => status === STATUS.ESME_RTHROTTLED)).to.have.length(3);
    expect(await submit(esme), 'no time has passed').to.equal(STATUS.ESME_RTHROTTLED);
    clock.advance(1_000);
    expect(await submit(esme), 'a second later').to.equal(STATUS.ESME_ROK);
  });
});
