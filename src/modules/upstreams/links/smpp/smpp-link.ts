// The gateway as an ESME: an upstream link that sends SMS through a provider's SMSC over SMPP.
// One bind that sends and receives (transceiver), or a transmitter and a receiver side by side;
// submissions pass the gate (window, throughput, the provider's "slow down") in order and go out
// as submit_sm, in parts when long; deliver_sm come back as receipts and incoming SMS.
import type { PDU } from 'smpp';
import { systemClock, type Clock } from '../../../../common/clock.ts';
import { maskPhone, type Logger } from '../../../../common/logger.ts';
import type { LinkEvents, LinkState, LinkStatus, SubmitOutcome, UpstreamLink, UpstreamSubmission } from '../link.ts';
import { BindSession, type BindRole, type SessionState } from './bind-session.ts';
import { describeStatus, isThrottling, retryOf, statusCode, STATUS } from './command-status.ts';
import { Deliveries } from './deliveries.ts';
import type { SmppDestinationGuard } from './destination.ts';
import { encodeOutgoingText } from './outgoing-text.ts';
import { ConnectionClosed, ResponseTimeout, type PduConnection } from './pdu-connection.ts';
import { isAlphanumericSender, withDefaults, type ResolvedSmppLinkSettings, type SmppLinkSettings } from './settings.ts';
import { absoluteSmppTime } from './smpp-time.ts';
import { SubmitGate } from './submit-gate.ts';

/** How long submissions wait after the provider said ESME_RTHROTTLED or ESME_RMSGQFUL. */
export const THROTTLE_PAUSE_MS = 1_000;
/** A concatenation header counts parts in one octet. */
const MOST_PARTS = 255;
const SWEEP_EVERY_MS = 10_000;

export interface SmppLinkOptions {
  clock?: Clock;
  /** The gateway's outbound destination guard: the SMSC's address must pass it (destination.ts). */
  guard?: SmppDestinationGuard;
}

type Refusal = Extract<SubmitOutcome, { accepted: false }>;

export class SmppLink implements UpstreamLink {
  private readonly settings: ResolvedSmppLinkSettings;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly sender: BindSession;
  private readonly receiver: BindSession | undefined;
  private readonly gate: SubmitGate;
  private readonly deliveries: Deliveries;
  private readonly sweepTimer: NodeJS.Timeout;
  private current: LinkStatus;
  private throttled = false;
  private throttleTimer: NodeJS.Timeout | undefined;
  private closed = false;
  private reference = Math.floor(Math.random() * 256);

  constructor(
    settings: SmppLinkSettings,
    private readonly events: LinkEvents,
    logger: Logger,
    options: SmppLinkOptions = {},
  ) {
    this.settings = withDefaults(settings);
    this.clock = options.clock ?? systemClock;
    this.logger = logger.child({ component: 'smpp-link', smsc: `${this.settings.host}:${this.settings.port}`, systemId: this.settings.systemId });
    this.current = { state: 'connecting', detail: null, since: new Date(this.clock.now()) };
    this.gate = new SubmitGate(this.settings.windowSize, this.settings.throughputPerSecond, this.clock);
    this.deliveries = new Deliveries(events, this.logger, this.clock, this.settings.responseTimeoutMs);
    const listener = {
      changed: (role: BindRole, state: SessionState) => this.sessionChanged(role, state),
      request: (pdu: PDU, connection: PduConnection) => this.deliveries.handle(pdu, connection),
    };
    const twoBinds = this.settings.bindMode === 'transmitter_receiver';
    this.sender = new BindSession(twoBinds ? 'transmitter' : 'transceiver', this.settings, listener, this.logger, options.guard);
    this.receiver = twoBinds ? new BindSession('receiver', this.settings, listener, this.logger, options.guard) : undefined;
    this.sweepTimer = setInterval(() => this.deliveries.sweep(), SWEEP_EVERY_MS);
    this.sweepTimer.unref();
    this.sender.start();
    this.receiver?.start();
  }

  get status(): LinkStatus {
    return this.current;
  }

  /** submit_sm sent and not answered yet. */
  get outstanding(): number {
    return this.gate.outstanding;
  }

  async submit(submission: UpstreamSubmission): Promise<SubmitOutcome> {
    try {
      return await this.send(submission);
    } catch (error) {
      // The contract: never a rejection. Something unforeseen is a refusal the same link may retry.
      this.logger.error({ err: { message: (error as Error).message }, smsId: submission.smsId }, 'a submission failed unexpectedly');
      return refusal('later', 'internal_error', `the link failed: ${(error as Error).message}`);
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.sweepTimer);
    clearTimeout(this.throttleTimer);
    this.gate.shut();
    await Promise.all([this.sender.close(), this.receiver?.close()]);
    this.update();
  }

  private async send(submission: UpstreamSubmission): Promise<SubmitOutcome> {
    const unavailable = this.unavailable();
    if (unavailable) return unavailable;
    const text = encodeOutgoingText(submission.text, this.nextReference());
    if (text.parts.length > MOST_PARTS) {
      return refusal('never', 'too_long', `the text needs ${text.parts.length} parts; an SMS has at most ${MOST_PARTS}`);
    }
    const fields = this.fieldsOf(submission);
    const providerIds: string[] = [];
    for (const [index, part] of text.parts.entries()) {
      const slot = await this.gate.enter();
      if (!slot) return this.halfSent(this.unavailable() ?? refusal('later', 'link_down', 'the link went down before the SMS went out'), providerIds);
      let response: PDU;
      try {
        const connection = this.sender.boundConnection;
        if (!connection) return this.halfSent(this.unavailable() ?? refusal('later', 'link_down', 'the link went down'), providerIds);
        response = await connection.request('submit_sm', { ...fields, esm_class: text.esmClass, data_coding: text.dataCoding, short_message: part }, this.settings.responseTimeoutMs);
      } catch (error) {
        // Gone out without an answer: the SMSC may have taken it, and a second submit_sm could send it twice.
        if (error instanceof ResponseTimeout) return this.halfSent(refusal('unknown', 'timeout', `${error.message}; the SMSC may have taken it`), providerIds);
        if (error instanceof ConnectionClosed) {
          const detail = `the connection ended before the SMSC answered (${error.message})`;
          return this.halfSent(error.written ? refusal('unknown', 'link_down', `${detail}; the SMSC may have taken it`) : refusal('later', 'link_down', detail), providerIds);
        }
        throw error;
      } finally {
        slot.release();
      }
      const status = response.command_status;
      if (status !== STATUS.ESME_ROK) {
        const partOf = text.parts.length > 1 ? ` (part ${index + 1} of ${text.parts.length})` : '';
        if (isThrottling(status)) {
          this.throttle();
          return this.halfSent(refusal('later', statusCode(status), `the SMSC asked to slow down: ${describeStatus(status)}${partOf}`, THROTTLE_PAUSE_MS), providerIds);
        }
        this.logger.info({ smsId: submission.smsId, status: describeStatus(status) }, 'the SMSC refused a submit_sm');
        return this.halfSent(refusal(retryOf(status), statusCode(status), `the SMSC refused it: ${describeStatus(status)}${partOf}`), providerIds);
      }
      providerIds.push(String(response.message_id ?? ''));
    }
    this.logger.debug({ smsId: submission.smsId, phone: maskPhone(submission.phone), segments: text.parts.length }, 'submitted to the SMSC');
    return { accepted: true, providerIds, segments: text.parts.length };
  }

  /** A link that cannot send now answers at once. */
  private unavailable(): Refusal | undefined {
    if (this.closed) return refusal('later', 'closed', 'the link is closed');
    if (this.sender.boundConnection) return undefined;
    const { state, detail } = this.current;
    return refusal('later', 'not_bound', `the link is not bound (${state}${detail ? `: ${detail}` : ''})`);
  }

  /** A refusal after some parts were taken names them: the SMSC may deliver those. */
  /**
   * A long text whose later part failed after earlier parts were accepted: the SMSC is sending
   * those parts, so the SMS may not go again, through this link or the next rule (the recipient
   * would get them twice). Its outcome is unknown, and the watchdog settles it.
   */
  private halfSent(outcome: Refusal, acceptedIds: string[]): Refusal {
    if (acceptedIds.length === 0) return outcome;
    return { ...outcome, retry: 'unknown', detail: `${outcome.detail}; parts already accepted: ${acceptedIds.join(', ')}` };
  }

  private fieldsOf(submission: UpstreamSubmission): Record<string, unknown> {
    const sender = submission.from ?? this.settings.sourceAddr;
    const alphanumeric = isAlphanumericSender(sender);
    const [sourceTon, sourceNpi] =
      this.settings.sourceTon !== undefined && this.settings.sourceNpi !== undefined
        ? [this.settings.sourceTon, this.settings.sourceNpi]
        : sender === ''
          ? [0, 0]
          : alphanumeric
            ? [5, 0]
            : [1, 1];
    return {
      service_type: '',
      source_addr_ton: sourceTon,
      source_addr_npi: sourceNpi,
      source_addr: alphanumeric ? sender : sender.replace(/^\+/, ''),
      dest_addr_ton: this.settings.destTon,
      dest_addr_npi: this.settings.destNpi,
      destination_addr: submission.phone.replace(/^\+/, ''),
      registered_delivery: submission.wantsReceipt ? 1 : 0,
      validity_period: submission.validUntil ? absoluteSmppTime(submission.validUntil) : '',
    };
  }

  private nextReference(): number {
    this.reference = (this.reference + 1) & 0xff;
    return this.reference;
  }

  private throttle(): void {
    this.gate.pauseUntil(this.clock.now() + THROTTLE_PAUSE_MS);
    this.throttled = true;
    clearTimeout(this.throttleTimer);
    this.throttleTimer = setTimeout(() => {
      this.throttled = false;
      this.update();
    }, THROTTLE_PAUSE_MS);
    this.update();
  }

  private sessionChanged(role: BindRole, state: SessionState): void {
    // Submissions waiting for their turn are turned away with the link: they would wait for a bind that may be a minute off.
    if (role !== 'receiver' && state !== 'bound') this.gate.shut();
    this.update();
  }

  /** Works the link's state out of its binds' and says so when it changed. */
  private update(): void {
    const next = this.worked();
    if (next.state === this.current.state && next.detail === this.current.detail) return;
    this.current = { ...next, since: new Date(this.clock.now()) };
    this.logger.info({ state: next.state, detail: next.detail }, 'the SMPP link changed state');
    this.events.stateChanged(this.current);
  }

  private worked(): { state: LinkState; detail: string | null } {
    if (this.closed) return { state: 'closed', detail: null };
    const sending = this.sender.state;
    if (sending === 'bound') {
      // Without its receiver the link still sends; receipts wait at the SMSC until it binds again.
      const receiving = this.receiver && this.receiver.state !== 'bound' ? `the receiver is not bound (${this.receiver.detail ?? this.receiver.state})` : null;
      return { state: this.throttled ? 'throttled' : 'ready', detail: this.throttled ? 'the SMSC asked to slow down' : receiving };
    }
    if (sending === 'connecting' || sending === 'closed') return { state: 'connecting', detail: null };
    return { state: 'down', detail: this.sender.detail };
  }
}

function refusal(retry: Refusal['retry'], code: string, detail: string, retryAfterMs?: number): Refusal {
  return retryAfterMs === undefined ? { accepted: false, retry, code, detail } : { accepted: false, retry, code, detail, retryAfterMs };
}
