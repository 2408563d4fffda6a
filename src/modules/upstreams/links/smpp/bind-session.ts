// One bind to the SMSC, kept up: connect, bind (as a transceiver, a transmitter or a receiver),
// check the line with enquire_link, answer the SMSC's enquire_link and unbind, and after a loss
// or a refused bind try again with backoff until closed. The SMSC's other requests (deliver_sm)
// are handed to the link.
import type { PDU } from 'smpp';
import type { Logger } from '../../../../common/logger.ts';
import { Backoff } from './backoff.ts';
import { describeStatus, STATUS } from './command-status.ts';
import type { SmppDestinationGuard } from './destination.ts';
import { PduConnection } from './pdu-connection.ts';
import type { ResolvedSmppLinkSettings } from './settings.ts';

export type BindRole = 'transceiver' | 'transmitter' | 'receiver';

export type SessionState = 'connecting' | 'bound' | 'down' | 'closed';

export interface SessionListener {
  changed(role: BindRole, state: SessionState, detail: string | null): void;
  /** A request of the SMSC's other than enquire_link and unbind; answer it on `connection`. */
  request(pdu: PDU, connection: PduConnection): void;
}

/** SMPP 3.4. */
const INTERFACE_VERSION = 0x34;

export class BindSession {
  private connection: PduConnection | undefined;
  private bound = false;
  private closing = false;
  private retryTimer: NodeJS.Timeout | undefined;
  private enquireTimer: NodeJS.Timeout | undefined;
  private readonly backoff: Backoff;
  private stateNow: SessionState = 'connecting';
  private detailNow: string | null = null;

  constructor(
    readonly role: BindRole,
    private readonly settings: ResolvedSmppLinkSettings,
    private readonly listener: SessionListener,
    private readonly logger: Logger,
    private readonly guard?: SmppDestinationGuard,
    random?: () => number,
  ) {
    this.backoff = new Backoff(random);
  }

  get state(): SessionState {
    return this.stateNow;
  }

  /** Why it is down (the last loss or refusal); null while bound. */
  get detail(): string | null {
    return this.detailNow;
  }

  /** The connection while bound; undefined otherwise. */
  get boundConnection(): PduConnection | undefined {
    return this.bound ? this.connection : undefined;
  }

  start(): void {
    void this.attempt();
  }

  /** Unbinds (waiting for unbind_resp at most the response timeout) and stops trying. */
  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    clearTimeout(this.retryTimer);
    clearInterval(this.enquireTimer);
    const connection = this.connection;
    if (connection?.open && this.bound) {
      await connection.request('unbind', {}, this.settings.responseTimeoutMs).catch(() => undefined);
    }
    connection?.finish('closed');
    this.bound = false;
    this.set('closed', null);
  }

  private async attempt(): Promise<void> {
    if (this.closing) return;
    let connection: PduConnection;
    try {
      connection = await PduConnection.open(
        { host: this.settings.host, port: this.settings.port, tls: this.settings.tls, ca: this.settings.ca, connectTimeoutMs: this.settings.responseTimeoutMs, guard: this.guard },
        { request: (pdu) => this.heard(pdu, connection), closed: (reason) => this.lost(connection, reason) },
      );
    } catch (error) {
      return this.retry(`cannot connect to ${this.settings.host}:${this.settings.port}: ${(error as Error).message}`);
    }
    if (this.closing) return connection.destroy('closed');
    this.connection = connection;
    let response: PDU;
    try {
      response = await connection.request(
        `bind_${this.role}`,
        {
          system_id: this.settings.systemId,
          password: this.settings.password,
          system_type: this.settings.systemType,
          interface_version: INTERFACE_VERSION,
          addr_ton: 0,
          addr_npi: 0,
          address_range: '',
        },
        this.settings.responseTimeoutMs,
      );
    } catch (error) {
      // The connection's end (when that is what happened) is reported by lost(); a timeout is ours to end.
      connection.destroy(`bind not answered: ${(error as Error).message}`);
      return;
    }
    if (this.closing) return;
    if (response.command_status !== STATUS.ESME_ROK) {
      const refusal = `bind refused: ${describeStatus(response.command_status)}`;
      this.logger.warn({ role: this.role, status: describeStatus(response.command_status) }, 'the SMSC refused the bind');
      connection.finish(refusal);
      return;
    }
    this.bound = true;
    this.backoff.reset();
    this.logger.info({ role: this.role, smsc: response.system_id || undefined }, 'bound to the SMSC');
    this.enquireTimer = setInterval(() => this.enquire(connection), this.settings.enquireLinkSeconds * 1000);
    this.set('bound', null);
  }

  private enquire(connection: PduConnection): void {
    connection.request('enquire_link', {}, this.settings.responseTimeoutMs).catch((error: Error) => {
      if (connection.open) connection.destroy(`enquire_link not answered: ${error.message}`);
    });
  }

  private heard(pdu: PDU, connection: PduConnection): void {
    if (pdu.command === 'enquire_link') return connection.respond(pdu);
    if (pdu.command === 'unbind') {
      connection.respond(pdu);
      this.logger.info({ role: this.role }, 'the SMSC unbound; binding again');
      return connection.finish('the SMSC unbound');
    }
    if (pdu.command === 'alert_notification') return; // answered by nothing, SMPP 3.4 4.12
    this.listener.request(pdu, connection);
  }

  private lost(connection: PduConnection, reason: string): void {
    if (connection !== this.connection) return;
    clearInterval(this.enquireTimer);
    this.connection = undefined;
    const wasBound = this.bound;
    this.bound = false;
    if (this.closing) return;
    if (wasBound) this.logger.warn({ role: this.role, reason }, 'the SMPP connection was lost');
    this.retry(reason);
  }

  private retry(reason: string): void {
    if (this.closing) return;
    const wait = this.backoff.next();
    this.set('down', reason);
    this.logger.info({ role: this.role, reason, retryInMs: wait }, 'binding again after a wait');
    this.retryTimer = setTimeout(() => void this.attempt(), wait);
  }

  private set(state: SessionState, detail: string | null): void {
    this.stateNow = state;
    this.detailNow = detail;
    this.listener.changed(this.role, state, detail);
  }
}
