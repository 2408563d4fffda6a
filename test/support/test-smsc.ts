// An SMSC for tests, made with the smpp package's server (software the gateway did not write): it
// records what it hears (binds, submit_sm, unbinds) and answers as a test tells it, and can send
// receipts and incoming SMS as deliver_sm.
import smpp, { type PDU, type Server, type Session } from 'smpp';
import type { AddressInfo } from 'node:net';

export const ESME_RINVPASWD = 0x0e;
export const ESME_RINVDSTADR = 0x0b;
export const ESME_RSYSERR = 0x08;
export const ESME_RTHROTTLED = 0x58;

export type SubmitAnswer = number | 'hold';

/** An SMSC for the link to bind to: it records what it hears and answers as a test tells it. */
export class TestSmsc {
  readonly binds: PDU[] = [];
  readonly submits: PDU[] = [];
  readonly deliverResponses: PDU[] = [];
  readonly unbinds: PDU[] = [];
  readonly held: { session: Session; pdu: PDU }[] = [];
  readonly sessions: Session[] = [];
  password = 'secret';
  answerEnquireLinks = true;
  /** How each submit_sm is answered: a command_status, or held until release(). */
  answer: (pdu: PDU, index: number) => SubmitAnswer = () => 0;
  mostOutstanding = 0;
  /** Send each accepted SMS's DELIVRD receipt in the same write as its submit_sm_resp. */
  receiptWithResponse = false;
  private messageIds = 0;

  private constructor(readonly server: Server) {}

  /** `tls`: SMPP over TLS with this key and certificate. */
  static async start(tls: { key?: Buffer; cert?: Buffer } = {}): Promise<TestSmsc> {
    const smsc = new TestSmsc(undefined as never);
    const server = smpp.createServer(tls, (session) => smsc.accept(session));
    (smsc as { server: Server }).server = server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    return smsc;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** The session the link is bound on (the last one). */
  get session(): Session {
    return this.sessions.at(-1)!;
  }

  private accept(session: Session): void {
    this.sessions.push(session);
    session.on('error', () => undefined);
    for (const mode of ['bind_transceiver', 'bind_transmitter', 'bind_receiver']) {
      session.on(mode, (pdu: PDU) => {
        this.binds.push(pdu);
        session.send(pdu.response({ command_status: pdu.password === this.password ? 0 : ESME_RINVPASWD, system_id: 'TESTSMSC' }));
      });
    }
    session.on('enquire_link', (pdu: PDU) => this.answerEnquireLinks && session.send(pdu.response()));
    session.on('unbind', (pdu: PDU) => {
      this.unbinds.push(pdu);
      session.send(pdu.response());
    });
    session.on('deliver_sm_resp', (pdu: PDU) => this.deliverResponses.push(pdu));
    session.on('submit_sm', (pdu: PDU) => {
      const index = this.submits.push(pdu) - 1;
      const answer = this.answer(pdu, index);
      if (answer === 'hold') {
        this.held.push({ session, pdu });
        this.mostOutstanding = Math.max(this.mostOutstanding, this.held.length);
        return;
      }
      if (answer !== 0) return session.send(pdu.response({ command_status: answer }));
      const id = `m${++this.messageIds}`;
      const response = pdu.response({ message_id: id });
      if (!this.receiptWithResponse) return session.send(response);
      const receipt = new smpp.PDU('deliver_sm', { sequence_number: 1000 + this.messageIds, esm_class: 4, receipted_message_id: id, message_state: 2 });
      session.socket.write(Buffer.concat([response.toBuffer(), receipt.toBuffer()]));
    });
  }

  /** Sends a receipt for an SMS it accepted, as the SMSC's text and TLVs say it (stat: DELIVRD, UNDELIV...). */
  receipt(messageId: string, stat: string, state: number): void {
    this.session.deliver_sm({
      esm_class: 4,
      source_addr: '79161234567',
      destination_addr: '',
      short_message: `id:${messageId} sub:001 dlvrd:001 submit date:2611291200 done date:2611291200 stat:${stat} err:000 text:`,
      receipted_message_id: messageId,
      message_state: state,
    });
  }

  /** The message ids it gave, in order. */
  get givenIds(): string[] {
    return Array.from({ length: this.messageIds }, (_, i) => `m${i + 1}`);
  }

  /** Answers the held submit_sm, oldest first. */
  release(count = this.held.length): void {
    for (const { session, pdu } of this.held.splice(0, count)) session.send(pdu.response({ message_id: `m${++this.messageIds}` }));
  }

  deliver(fields: Record<string, unknown>): void {
    this.session.deliver_sm({ source_addr_ton: 1, source_addr_npi: 1, source_addr: '79161234567', dest_addr_ton: 1, dest_addr_npi: 1, destination_addr: '15550001111', ...fields });
  }

  async stop(): Promise<void> {
    for (const session of [...this.sessions]) session.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

