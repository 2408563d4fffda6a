// An ESME for tests: the smpp package's client, with each request answered as a promise, the
// deliver_sm it hears kept in order (and answered, unless told not to), and the PDUs it hears
// waited on. Sessions opened here are closed by closeAll() after each test.
import { execFileSync } from 'node:child_process';
import smpp, { type PDU, type Session } from 'smpp';
import type { Gateway } from '../../src/gateway.ts';
import type { Tenant } from './tenant.ts';

export class TestEsme {
  readonly delivered: PDU[] = [];
  /** Whether deliver_sm is answered (ESME_ROK); false: left unanswered, as a stuck client would. */
  answerDeliveries = true;
  /** Whether the gateway's enquire_link is answered; false: a dead peer, as far as the gateway can tell. */
  answerEnquireLinks = true;
  private readonly waiters: { accept: (pdu: PDU) => boolean; resolve: (pdu: PDU) => void }[] = [];
  closed: Promise<void>;
  /** Requests sent and not yet answered: failed when the gateway closes the session instead. */
  private readonly unanswered = new Set<(error: Error) => void>();

  private constructor(readonly session: Session) {
    session.on('error', () => undefined);
    this.closed = new Promise((resolve) => session.on('close', () => resolve()));
    session.on('close', () => {
      for (const fail of this.unanswered) fail(new Error('the gateway closed the session before answering'));
      this.unanswered.clear();
    });
    session.on('pdu', (pdu: PDU) => {
      if (pdu.command === 'deliver_sm') {
        this.delivered.push(pdu);
        if (this.answerDeliveries) session.send(pdu.response());
      }
      if (pdu.command === 'enquire_link' && this.answerEnquireLinks) session.send(pdu.response());
      if (pdu.command === 'unbind') session.send(pdu.response());
      for (const waiter of [...this.waiters]) {
        if (!waiter.accept(pdu)) continue;
        this.waiters.splice(this.waiters.indexOf(waiter), 1);
        waiter.resolve(pdu);
      }
    });
  }

  /** `ca`: SMPP over TLS, trusting this certificate. */
  static connect(port: number, ca?: string): Promise<TestEsme> {
    return new Promise((resolve, reject) => {
      const url = `${ca ? 'ssmpp' : 'smpp'}://127.0.0.1:${port}`;
      const session = smpp.connect({ url, auto_enquire_link_period: 0, ...(ca ? { ca } : {}) }, () => resolve(new TestEsme(session)));
      session.once('error', reject);
    });
  }

  /** Sends a request and resolves with its response. */
  call(command: string, fields: Record<string, unknown> = {}): Promise<PDU> {
    return new Promise((resolve, reject) => {
      const pdu = new smpp.PDU(command, fields);
      const fail = (error: Error) => reject(new Error(`${command}: ${error.message}`));
      this.unanswered.add(fail);
      const answered = (response: PDU) => {
        this.unanswered.delete(fail);
        resolve(response);
      };
      if (!this.session.send(pdu, answered)) {
        this.unanswered.delete(fail);
        reject(new Error('the session is closed'));
      }
    });
  }

  /** The next PDU the gateway sends that `accept` takes (deliver_sm heard before count too). */
  next(accept: (pdu: PDU) => boolean, timeoutMs = 10_000): Promise<PDU> {
    const earlier = this.delivered.find(accept);
    if (earlier) return Promise.resolve(earlier);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no matching PDU within ${timeoutMs} ms`)), timeoutMs);
      this.waiters.push({ accept, resolve: (pdu) => (clearTimeout(timer), resolve(pdu)) });
    });
  }

  /** The delivery receipt of an SMS. */
  receiptOf(smsId: string, timeoutMs?: number): Promise<PDU> {
    return this.next((pdu) => pdu.command === 'deliver_sm' && pdu.receipted_message_id === smsId, timeoutMs);
  }

  close(): void {
    this.session.destroy();
  }
}

export interface IssuedCredential {
  id: string;
  system_id: string;
  password: string;
}

/** A credential of the tenant's account, through the API. */
export async function issueCredential(tenant: Tenant, body: Record<string, unknown> = {}): Promise<IssuedCredential> {
  const reply = await tenant.api.post('/smpp/credentials', body);
  if (reply.status !== 201) throw new Error(`credential not issued: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body as IssuedCredential;
}

/** An ESME bound with the credential, as `mode` (transceiver by default). */
export async function bindEsme(gateway: Gateway, credential: IssuedCredential, mode = 'bind_transceiver'): Promise<TestEsme> {
  const esme = await TestEsme.connect(gateway.smppPort);
  const response = await esme.call(mode, { system_id: credential.system_id, password: credential.password });
  if (response.command_status !== 0) throw new Error(`bind refused: ${response.command_status}`);
  return esme;
}

/** SMPP config for a test gateway: plain SMPP on a free port. */
export const SMPP_ON = { port: 0, tls: undefined, enquireLinkMs: 30_000, receiptRetentionMs: 3_600_000 };

/** Whether Net::SMPP, the Perl ESME some tests drive, is installed (.ci/run installs libnet-smpp-perl). */
export function hasNetSmpp(): boolean {
  try {
    execFileSync('perl', ['-MNet::SMPP', '-e', '1'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
