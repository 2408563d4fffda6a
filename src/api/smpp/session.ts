// One ESME's connection: it binds (as transmitter, receiver or transceiver), submits SMS, asks
// after them, and hears receipts and incoming SMS as deliver_sm. Every request is answered with
// a status, never with a dropped connection, a PDU whose fields or TLVs run past its end
// included (pdu-reader.ts); only bytes that cannot be read as a PDU (its length is unreadable,
// so the next PDU cannot be found) end it, after a generic_nack. Nothing an ESME sends can
// throw out of here: PDUs are handed over synchronously from the socket's own handler.
import smpp, { type PDU, type Session } from 'smpp';
import { randomUUID } from 'node:crypto';
import type { SmppCredential, PendingDeliver } from '../../modules/smpp/types.ts';
import { clientAddressKey } from '../../common/client-address.ts';
import { SmppRefusal, STATUS, statusName } from './command-status.ts';
import { PartAssembler, partNumber } from './concatenation.ts';
import type { PartHolds } from './part-holds.ts';
import { readPdus } from './pdu-reader.ts';
import type { LayoutProblem } from './pdu-layout.ts';
import { encodeDeliverText } from './deliver-encoding.ts';
import { submittedText } from './short-message.ts';
import { checkAhead, checkLength, readDestination, readRegisteredDelivery, readSubmissionFields, readTimeToLive } from './submit-fields.ts';
import { replacementText } from './replacement-text.ts';
import { readSmppTime } from './smpp-time.ts';
import type { SmppListenerOptions, SmppPorts } from './ports.ts';
import type { TokenBucket } from './throughput.ts';

export type BindMode = 'transmitter' | 'receiver' | 'transceiver';

/** What a session asks of the listener that holds it. */
export interface SessionHost {
  bound(session: SmppSession): void;
  ended(session: SmppSession): void;
  /** The credential's throughput limit, shared by its sessions on this node. */
  bucketOf(credential: SmppCredential): TokenBucket;
  /** Something may be sent to the credential's receivers now. */
  wake(credentialId: string): void;
  /** Whether a failure is the database being unreachable (then logged once per outage, not per request). */
  databaseFailed(error: unknown): boolean;
  /** What the unfinished concatenated messages of each account hold on this node. */
  readonly partHolds: PartHolds;
}

const BIND_MODES: Record<string, BindMode> = {
  bind_transmitter: 'transmitter',
  bind_receiver: 'receiver',
  bind_transceiver: 'transceiver',
};

/** What the gateway calls itself in bind_resp. */
const GATEWAY_SYSTEM_ID = 'sms-gateway';

export class SmppSession {
  mode: BindMode | undefined;
  credential: SmppCredential | undefined;
  private binding = false;
  private closed = false;
  /** Requests from the ESME being worked on: past its window, submissions are throttled. */
  private working = 0;
  /** deliver_sm sent and not yet answered, by stored row id. */
  private readonly outstanding = new Map<string, NodeJS.Timeout>();
  /** What to do with the ESME's answer to a PDU the gateway sent, by sequence number. */
  private readonly awaiting = new Map<number, (response: PDU) => void>();
  private lastHeard: number;
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly assembler: PartAssembler;
  readonly address: string | undefined;

  constructor(
    private readonly session: Session,
    private readonly ports: SmppPorts,
    private readonly options: SmppListenerOptions,
    private readonly host: SessionHost,
  ) {
    this.address = session.socket.remoteAddress;
    this.lastHeard = ports.clock.now();
    this.assembler = new PartAssembler(randomUUID, host.partHolds, (parts, total) =>
      ports.logger.warn({ systemId: this.credential?.system_id, parts, total }, 'SMPP concatenated message dropped: its parts stopped coming'),
    );
    readPdus(session.socket, { pdu: (pdu, problem) => this.heard(pdu, problem), unreadable: (reason) => this.unreadable(reason) });
    // A socket's own error (reset, broken pipe): nothing to answer.
    session.on('error', (error: NodeJS.ErrnoException) => this.close(`socket error ${error.code ?? error.message}`));
    session.on('close', () => this.end());
    const bindTimer = setTimeout(() => {
      if (!this.mode) this.close('no bind in time');
    }, options.bindTimeoutMs);
    bindTimer.unref();
    this.timers.push(bindTimer);
    this.watchLink(options.enquireLinkMs);
  }

  get receives(): boolean {
    return this.mode === 'receiver' || this.mode === 'transceiver';
  }

  private get transmits(): boolean {
    return this.mode === 'transmitter' || this.mode === 'transceiver';
  }

  /** deliver_sm the ESME may still be sent before its window is full. */
  get room(): number {
    if (!this.credential || !this.receives || this.closed) return 0;
    return Math.max(0, this.credential.window_size - this.outstanding.size);
  }

  /** Sends one stored deliver_sm; the row is done when the ESME answers it with ESME_ROK. */
  deliver(row: PendingDeliver): void {
    if (this.closed) return;
    const encoded = encodeDeliverText(row.short_message, this.credential?.default_data_coding ?? 'gsm7');
    const receipt = row.kind === 'receipt';
    const fields: Record<string, unknown> = {
      source_addr_ton: row.source_addr.startsWith('+') ? 1 : 0,
      source_addr_npi: 1,
      source_addr: row.source_addr.replace(/^\+/, ''),
      destination_addr: row.destination_addr,
      // An incoming SMS is addressed to the phone that received it, by name (alphanumeric, TON 5).
      ...(receipt ? {} : { dest_addr_ton: 5, dest_addr_npi: 0 }),
      // 0x04: an SMSC delivery receipt; 0: an SMS from a phone.
      esm_class: receipt ? 0x04 : 0x00,
      ...encoded,
      ...(receipt ? { receipted_message_id: row.receipted_message_id ?? '', message_state: row.message_state ?? 0 } : {}),
    };
    const timer = setTimeout(() => {
      // Unanswered: its lease runs out and it is taken again, by this session or the next.
      this.outstanding.delete(row.id);
      this.host.wake(row.credential_id);
    }, this.options.responseTimeoutMs);
    timer.unref();
    this.outstanding.set(row.id, timer);
    this.send(new smpp.PDU('deliver_sm', fields), (response) => {
      clearTimeout(timer);
      this.outstanding.delete(row.id);
      this.count('deliver_sm_resp', response.command_status);
      if (response.command_status !== STATUS.ESME_ROK) return;
      this.ports.pending.acknowledged(row.id).then(
        () => this.host.wake(row.credential_id),
        (error: unknown) => this.ports.logger.warn({ err: error }, 'SMPP deliver_sm answered but not marked done; it will be sent again'),
      );
    });
  }

  /** Ends the session from the gateway's side: unbind, and close whether or not the ESME answers. */
  unbind(reason: string): void {
    if (this.closed) return;
    this.ports.logger.info({ systemId: this.credential?.system_id, reason }, 'SMPP session unbound by the gateway');
    this.send(new smpp.PDU('unbind'), () => this.close(reason));
    const timer = setTimeout(() => this.close(reason), 1_000);
    timer.unref();
  }

  close(reason: string): void {
    if (this.closed) return;
    this.ports.logger.debug({ systemId: this.credential?.system_id, reason }, 'SMPP session closing');
    this.session.destroy();
    this.end();
  }

  private end(): void {
    if (this.closed) return;
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    for (const timer of this.outstanding.values()) clearTimeout(timer);
    const unanswered = [...this.outstanding.keys()];
    this.outstanding.clear();
    this.awaiting.clear();
    this.assembler.clear();
    // Taken at once by the next bind, instead of after their lease.
    if (unanswered.length > 0) this.ports.pending.release(unanswered).catch(() => undefined);
    this.host.ended(this);
  }

  private heard(pdu: PDU, problem: LayoutProblem | undefined): void {
    this.lastHeard = this.ports.clock.now();
    if (pdu.isResponse()) return this.answered(pdu);
    if (problem) return this.malformed(pdu, problem);
    this.working++;
    this.handle(pdu)
      .catch((error: unknown) => {
        if (error instanceof SmppRefusal) return this.respond(pdu, error.status);
        if (this.host.databaseFailed(error)) return this.respond(pdu, STATUS.ESME_RSYSERR);
        this.ports.logger.error({ err: error, command: pdu.command, systemId: this.credential?.system_id }, 'SMPP request failed');
        this.respond(pdu, STATUS.ESME_RSYSERR);
      })
      .finally(() => this.working--);
  }

  private answered(response: PDU): void {
    const onResponse = this.awaiting.get(response.sequence_number);
    if (!onResponse) return;
    this.awaiting.delete(response.sequence_number);
    onResponse(response);
  }

  /** A request whose lengths do not hold together: answered with what is wrong, the session stays. */
  private malformed(request: PDU, problem: LayoutProblem): void {
    if (request.command === 'generic_nack') return;
    this.ports.logger.debug({ systemId: this.credential?.system_id, command: request.command, reason: problem.reason }, 'SMPP PDU refused as malformed');
    this.respond(request, problem.status);
  }

  private unreadable(reason: string): void {
    if (this.closed) return;
    this.count('unreadable', STATUS.ESME_RINVCMDLEN);
    this.ports.logger.info({ systemId: this.credential?.system_id, address: clientAddressKey(this.address), reason }, 'SMPP bytes that are not a PDU; connection closed');
    this.send(new smpp.PDU('generic_nack', { command_status: STATUS.ESME_RINVCMDLEN, sequence_number: 0 }));
    this.session.close();
    const timer = setTimeout(() => this.close('unreadable PDU'), 500);
    timer.unref();
  }

  private async handle(pdu: PDU): Promise<void> {
    const mode = BIND_MODES[pdu.command];
    if (mode) return this.bind(pdu, mode);
    switch (pdu.command) {
      case 'enquire_link':
        return this.respond(pdu, STATUS.ESME_ROK);
      case 'unbind':
        this.respond(pdu, STATUS.ESME_ROK);
        this.session.close();
        return;
      case 'generic_nack':
        return;
      case 'submit_sm':
      case 'data_sm':
      case 'submit_multi':
      case 'query_sm':
      case 'cancel_sm':
      case 'replace_sm':
        if (!this.transmits || this.binding) return this.respond(pdu, STATUS.ESME_RINVBNDSTS);
        // data_sm is submit_sm's other form: the text in message_payload, answered data_sm_resp.
        if (pdu.command === 'submit_sm' || pdu.command === 'data_sm') return this.submit(pdu);
        if (pdu.command === 'submit_multi') return this.submitMulti(pdu);
        if (pdu.command === 'query_sm') return this.query(pdu);
        if (pdu.command === 'replace_sm') return this.replace(pdu);
        return this.cancel(pdu);
      default:
        // An unknown command id, or one the gateway does not take (outbind, broadcast, ...).
        this.count(pdu.command, STATUS.ESME_RINVCMDID);
        this.send(new smpp.PDU('generic_nack', { command_status: STATUS.ESME_RINVCMDID, sequence_number: pdu.sequence_number }));
    }
  }

  private async bind(pdu: PDU, mode: BindMode): Promise<void> {
    if (this.mode || this.binding) return this.respond(pdu, STATUS.ESME_RALYBND);
    this.binding = true;
    const systemId = typeof pdu.system_id === 'string' ? pdu.system_id : '';
    const attempt = { channel: 'smpp' as const, address: this.address, credential: systemId || undefined };
    try {
      if (this.ports.authThrottle.refusedFor(attempt) > 0) {
        this.ports.metrics.count('smpp_binds_total', 'SMPP binds, by mode and outcome', { mode, outcome: 'throttled' });
        return this.respond(pdu, STATUS.ESME_RBINDFAIL);
      }
      const credential = await this.ports.credentials.authenticate(systemId, typeof pdu.password === 'string' ? pdu.password : '');
      if (!credential) {
        this.ports.authThrottle.failed(attempt);
        this.ports.metrics.count('smpp_binds_total', 'SMPP binds, by mode and outcome', { mode, outcome: 'refused' });
        this.ports.logger.info({ systemId, address: clientAddressKey(this.address) }, 'SMPP bind refused');
        return this.respond(pdu, STATUS.ESME_RBINDFAIL);
      }
      if (this.closed) return;
      this.credential = credential;
      this.mode = mode;
      this.ports.metrics.count('smpp_binds_total', 'SMPP binds, by mode and outcome', { mode, outcome: 'bound' });
      this.ports.logger.info({ systemId, mode }, 'SMPP session bound');
      this.respond(pdu, STATUS.ESME_ROK, { system_id: GATEWAY_SYSTEM_ID });
      this.host.bound(this);
    } finally {
      this.binding = false;
    }
  }

  private async submit(pdu: PDU): Promise<void> {
    const credential = this.credential!;
    this.admit(credential, 1);
    const request = readSubmissionFields(pdu, this.ports.clock.now());
    if (pdu.command === 'data_sm') request.validUntil = readTimeToLive(pdu, this.ports.clock.now());
    const destination = readDestination(pdu.dest_addr_ton, pdu.dest_addr_npi, pdu.destination_addr, this.options.defaultPhoneRegion);
    const { text, udh } = submittedText(pdu, credential.default_data_coding);
    const part = partNumber(udh, pdu);
    let smsId: string | undefined;
    let whole = text;
    if (part && part.total > 1) {
      const key = `${credential.id}|${pdu.source_addr ?? ''}|${destination}`;
      const gathered = this.assembler.add(credential.account_id, key, part, text);
      if (gathered.whole === undefined) return this.respond(pdu, STATUS.ESME_ROK, { message_id: gathered.smsId });
      smsId = gathered.smsId;
      whole = gathered.whole;
    }
    checkLength(whole);
    const id = await this.ports.submissions.submit(credential, { ...request, smsId, destination, text: whole });
    this.respond(pdu, STATUS.ESME_ROK, { message_id: id });
  }

  /** submit_multi: one SMS per destination; the answer names the first SMS and lists the destinations refused. */
  private async submitMulti(pdu: PDU): Promise<void> {
    const credential = this.credential!;
    const destinations: { dest_addr_ton?: number; dest_addr_npi?: number; destination_addr?: string; dl_name?: string }[] = Array.isArray(pdu.dest_address) ? pdu.dest_address : [];
    if (destinations.length === 0 || destinations.length > 255) throw new SmppRefusal(STATUS.ESME_RINVNUMDESTS, 'submit_multi needs 1-255 destinations');
    this.admit(credential, destinations.length);
    const request = readSubmissionFields(pdu, this.ports.clock.now());
    const { text, udh } = submittedText(pdu, credential.default_data_coding);
    if (partNumber(udh, pdu)) throw new SmppRefusal(STATUS.ESME_RINVESMCLASS, 'submit_multi takes whole messages, not parts');
    checkLength(text);
    const ids: string[] = [];
    const unsuccess: { dest_addr_ton: number; dest_addr_npi: number; destination_addr: string; error_status_code: number }[] = [];
    for (const destination of destinations) {
      const refused = (status: number) =>
        unsuccess.push({ dest_addr_ton: destination.dest_addr_ton ?? 0, dest_addr_npi: destination.dest_addr_npi ?? 0, destination_addr: destination.destination_addr ?? '', error_status_code: status });
      // Distribution lists are the SMSC's own; the gateway keeps none.
      if (destination.dl_name !== undefined) {
        refused(STATUS.ESME_RINVDSTADR);
        continue;
      }
      try {
        const phone = readDestination(destination.dest_addr_ton, destination.dest_addr_npi, destination.destination_addr, this.options.defaultPhoneRegion);
        ids.push(await this.ports.submissions.submit(credential, { ...request, destination: phone, text }));
      } catch (error) {
        if (!(error instanceof SmppRefusal)) throw error;
        refused(error.status);
      }
    }
    if (ids.length === 0) throw new SmppRefusal(unsuccess[0]?.error_status_code === STATUS.ESME_RINVDSTADR ? STATUS.ESME_RINVDSTADR : STATUS.ESME_RSUBMITFAIL, 'no destination was accepted');
    this.respond(pdu, STATUS.ESME_ROK, { message_id: ids[0], unsuccess_sme: unsuccess });
  }

  private async query(pdu: PDU): Promise<void> {
    const state = await this.ports.submissions.query(this.credential!, String(pdu.message_id ?? ''));
    this.respond(pdu, STATUS.ESME_ROK, {
      message_id: pdu.message_id,
      final_date: state.finalDate ?? '',
      message_state: state.state,
      error_code: state.errorCode,
    });
  }

  private async cancel(pdu: PDU): Promise<void> {
    await this.ports.submissions.cancel(this.credential!, String(pdu.message_id ?? ''));
    this.respond(pdu, STATUS.ESME_ROK);
  }

  /**
   * replace_sm: schedule_delivery_time and validity_period left empty keep the SMS's own;
   * registered_delivery, a mandatory field, always replaces the receipt wish.
   */
  private async replace(pdu: PDU): Promise<void> {
    const credential = this.credential!;
    this.admit(credential, 1);
    const now = this.ports.clock.now();
    const registeredDelivery = readRegisteredDelivery(pdu);
    const sendAt = readSmppTime(pdu.schedule_delivery_time, STATUS.ESME_RINVSCHED, 'schedule_delivery_time');
    const validUntil = readSmppTime(pdu.validity_period, STATUS.ESME_RINVEXPIRY, 'validity_period');
    checkAhead(sendAt, validUntil, now);
    await this.ports.submissions.replace(credential, String(pdu.message_id ?? ''), {
      text: (submission) => {
        const text = replacementText(pdu, submission.dataCoding, credential.default_data_coding);
        checkLength(text);
        return text;
      },
      // A past schedule sends at once, as in submit_sm.
      sendAt: sendAt === undefined ? undefined : sendAt.getTime() > now ? sendAt : null,
      validUntil,
      registeredDelivery,
      sourceAddr: typeof pdu.source_addr === 'string' && pdu.source_addr !== '' ? pdu.source_addr : undefined,
    });
    this.respond(pdu, STATUS.ESME_ROK);
  }

  /** Within the ESME's window and the credential's throughput, or refused with ESME_RTHROTTLED. */
  private admit(credential: SmppCredential, count: number): void {
    if (this.working > credential.window_size) throw new SmppRefusal(STATUS.ESME_RTHROTTLED, 'more requests unanswered than the window allows');
    if (!this.host.bucketOf(credential).take(count)) throw new SmppRefusal(STATUS.ESME_RTHROTTLED, 'over the credential\'s throughput limit');
  }

  /**
   * Wakes when the session will have been silent for the interval (and again at twice it), not on
   * a fixed tick: a tick would send enquire_link up to half an interval late. A PDU heard in the
   * meantime moves nothing here; the wake finds it in lastHeard and sleeps the rest of the way.
   */
  private watchLink(delayMs: number): void {
    if (this.closed) return;
    const timer = setTimeout(() => {
      this.timers.splice(this.timers.indexOf(timer), 1);
      this.checkLink();
    }, Math.max(1, delayMs));
    timer.unref();
    this.timers.push(timer);
  }

  private checkLink(): void {
    if (this.closed) return;
    const interval = this.options.enquireLinkMs;
    const silentFor = this.ports.clock.now() - this.lastHeard;
    if (silentFor < interval) return this.watchLink(interval - silentFor);
    if (silentFor >= 2 * interval) return this.closeUnlessHeardAfterReading();
    this.watchLink(2 * interval - silentFor);
    this.send(new smpp.PDU('enquire_link'));
    // Another node may have revoked the credential; this one hears of it here at the latest.
    if (this.credential) {
      const credential = this.credential;
      this.ports.credentials.stillWorks(credential.id).then(
        (works) => {
          if (!works) this.unbind('credential revoked');
        },
        () => undefined,
      );
    }
  }

  /**
   * A timer runs before the socket is read in each turn of the event loop, so after this process
   * was busy (a long query, a burst of work) a late timer may find the peer silent while its
   * enquire_link_resp waits unread. The verdict waits until this turn's bytes are read: only a
   * peer still silent then is closed.
   */
  private closeUnlessHeardAfterReading(): void {
    setImmediate(() => {
      if (this.closed) return;
      if (this.ports.clock.now() - this.lastHeard >= 2 * this.options.enquireLinkMs) this.close('no answer to enquire_link');
      else this.checkLink();
    });
  }

  private respond(request: PDU, status: number, fields: Record<string, unknown> = {}): void {
    this.count(request.command, status);
    if (this.closed) return;
    const response = status === STATUS.ESME_ROK ? request.response(fields) : request.response({ command_status: status });
    this.send(response);
  }

  private send(pdu: PDU, onResponse?: (response: PDU) => void): void {
    try {
      // The sequence number is given in send(); the answer can only come after it returns.
      if (this.session.send(pdu) && onResponse) this.awaiting.set(pdu.sequence_number, onResponse);
    } catch (error) {
      this.ports.logger.error({ err: error, command: pdu.command }, 'SMPP PDU could not be encoded');
    }
  }

  private count(command: string, status: number): void {
    this.ports.metrics.count('smpp_pdus_total', 'SMPP PDUs handled, by command and the status answered', { command, status: statusName(status) });
  }
}
