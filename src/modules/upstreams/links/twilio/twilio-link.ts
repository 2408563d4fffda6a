// The link to a service that speaks Twilio's Messages API: Twilio itself, or another SMS
// gateway's Twilio-compatible API (this gateway's own included). Each submission is one
// "create a Message" request: POST {baseUrl}/2010-04-01/Accounts/{sid}/Messages.json, form
// encoded, HTTP Basic with the AccountSid and auth token, over a keep-alive pool with connect,
// headers and body timeouts.
//
// - Pace: at most maxConcurrent requests at once, throughputPerSecond starts a second, none while
//   the provider's Retry-After runs (pacing.ts).
// - What an answer means: answer.ts; what it does to the link's state: link-health.ts.
// - The SMS id goes as I-Twilio-Idempotency-Token: a request retried after a timeout, whose first
//   try the provider may have taken, is answered with the first message by a service that honours
//   the header (this gateway does) instead of sending the SMS twice.
// - The owner gives the base URL, so it is held to the same destination guard as webhooks: a
//   literal address is checked once (its answer never changes), a host name at every connection
//   (the guard is the pool's DNS lookup, so the address checked is the address connected to).
// - Logs carry codes, states and masked numbers: never the auth token or the text.
import { isIP } from 'node:net';
import { Agent, request } from 'undici';
import type { Logger } from '../../../../common/logger.ts';
import { maskPhone } from '../../../../common/logger.ts';
import type { DestinationGuard } from '../../../webhooks/outbound/destination-guard.ts';
import type { LinkEvents, LinkStatus, SubmitOutcome, UpstreamLink, UpstreamSubmission } from '../link.ts';
import { readAnswer } from './answer.ts';
import { readIncoming } from './incoming.ts';
import { LinkHealth } from './link-health.ts';
import { messageForm } from './message-form.ts';
import { readNetworkFailure } from './network-failure.ts';
import { Pacer } from './pacing.ts';
import { checkTwilioLinkSettings, messagesUrl, TWILIO_LINK_DEFAULTS, type TwilioLinkSettings } from './settings.ts';
import { verifyTwilioSignature } from './signature.ts';
import { readStatusCallback } from './status-callback.ts';

/** What the link needs of the gateway's outbound destination guard (the webhooks' DestinationGuard fits). */
export type LinkDestinationGuard = Pick<DestinationGuard, 'refusal' | 'lookup'>;

export interface TwilioLinkOptions {
  /** Where the provider posts status callbacks for this link's messages; none: no receipts. */
  statusCallbackUrl?: string;
  guard: LinkDestinationGuard;
  /** Connect, headers and body timeout of one request. */
  timeoutMs?: number;
}

export const DEFAULT_TIMEOUT_MS = 10_000;
/** A provider's answer is read up to this size: a Message resource is a few kilobytes. */
const MAX_ANSWER_BYTES = 64 * 1024;

/** What became of a callback the provider posted. */
export type CallbackResult = 'taken' | 'ignored' | 'forged';

export class TwilioLink implements UpstreamLink {
  private readonly health: LinkHealth;
  private readonly pacer: Pacer;
  private readonly agent: Agent;
  private readonly url: string;
  private readonly authorization: string;
  private readonly authToken: string;
  private readonly logger: Logger;
  /** The guard's answer for a literal address in baseUrl, asked once; undefined for a host name. */
  private readonly destination: Promise<string | undefined>;
  private readonly requests = new Set<Promise<unknown>>();
  private closing: Promise<void> | undefined;

  constructor(
    private readonly settings: TwilioLinkSettings,
    private readonly events: LinkEvents,
    logger: Logger,
    private readonly options: TwilioLinkOptions,
  ) {
    const problems = checkTwilioLinkSettings(settings);
    if (problems.length > 0) throw new Error(`Twilio link settings: ${problems.join('; ')}`);
    this.url = messagesUrl(settings);
    this.authToken = settings.authToken;
    this.authorization = `Basic ${Buffer.from(`${settings.accountSid}:${settings.authToken}`).toString('base64')}`;
    const host = new URL(settings.baseUrl).hostname.replace(/^\[|\]$/g, '');
    this.logger = logger.child({ component: 'twilio-link', host });
    const maxConcurrent = settings.maxConcurrent ?? TWILIO_LINK_DEFAULTS.maxConcurrent;
    this.pacer = new Pacer(maxConcurrent, settings.throughputPerSecond ?? TWILIO_LINK_DEFAULTS.throughputPerSecond);
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.agent = new Agent({
      connections: maxConcurrent,
      keepAliveTimeout: 30_000,
      connect: { timeout: timeoutMs, lookup: options.guard.lookup },
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      maxResponseSize: MAX_ANSWER_BYTES,
    });
    this.destination = isIP(host) ? options.guard.refusal(settings.baseUrl) : Promise.resolve(undefined);
    this.health = new LinkHealth((status) => this.stateChanged(status));
  }

  get status(): LinkStatus {
    return this.health.status;
  }

  async submit(submission: UpstreamSubmission): Promise<SubmitOutcome> {
    const refusedDestination = await this.destination;
    if (refusedDestination) this.health.destinationRefused(refusedDestination);
    const early = this.health.refusal(false);
    if (early) return this.refused(submission, early);
    const release = await this.pacer.acquire();
    if (!release) return this.refused(submission, this.health.refusal(false) ?? { accepted: false, retry: 'later', code: 'closed', detail: 'the link is closed' });
    try {
      // The state may have changed while it waited its turn; a down link lets one through as its probe.
      const refusal = this.health.refusal(true);
      if (refusal) return this.refused(submission, refusal);
      const sending = this.send(submission);
      this.requests.add(sending);
      try {
        return await sending;
      } finally {
        this.requests.delete(sending);
      }
    } finally {
      release();
    }
  }

  /**
   * A status callback the provider posted (the endpoint that received it gives the URL it was
   * posted to, its form parameters and its X-Twilio-Signature): a receipt goes to the events when
   * it is signed with this link's token and says what became of an SMS.
   */
  async receiveStatusCallback(url: string, params: Record<string, string>, signature: string | undefined): Promise<CallbackResult> {
    if (!verifyTwilioSignature(url, params, signature, this.authToken)) return 'forged';
    const receipt = readStatusCallback(params);
    if (!receipt) return 'ignored';
    await this.events.receipt(receipt);
    return 'taken';
  }

  /** An incoming SMS the provider posted (its inbound webhook), as receiveStatusCallback. */
  async receiveIncoming(url: string, params: Record<string, string>, signature: string | undefined): Promise<CallbackResult> {
    if (!verifyTwilioSignature(url, params, signature, this.authToken)) return 'forged';
    const incoming = readIncoming(params);
    if (!incoming) return 'ignored';
    await this.events.incoming(incoming);
    return 'taken';
  }

  /** Idempotent: a second call waits for the first. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      this.health.close();
      this.pacer.close();
      // Requests on their way end by their answer or their timeout: their outcomes still count.
      await Promise.allSettled([...this.requests]);
      await this.agent.close();
    })();
    return this.closing;
  }

  private async send(submission: UpstreamSubmission): Promise<SubmitOutcome> {
    const form = messageForm(this.settings, submission, this.options.statusCallbackUrl);
    let status: number;
    let body: string;
    let retryAfter: string | undefined;
    try {
      const response = await request(this.url, {
        method: 'POST',
        dispatcher: this.agent,
        headers: {
          authorization: this.authorization,
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
          'i-twilio-idempotency-token': submission.smsId,
        },
        body: form.toString(),
      });
      status = response.statusCode;
      const header = response.headers['retry-after'];
      retryAfter = Array.isArray(header) ? header[0] : header;
      body = await response.body.text();
    } catch (error) {
      const failure = readNetworkFailure(error);
      if (failure.blocked) {
        this.health.destinationRefused(failure.detail);
        return this.refused(submission, { accepted: false, retry: 'never', code: failure.code, detail: failure.detail });
      }
      this.health.failing(failure.detail);
      return this.refused(submission, { accepted: false, retry: 'later', code: failure.code, detail: failure.detail });
    }
    const { outcome, effect } = readAnswer(status, body, retryAfter);
    if (effect === 'working') this.health.working();
    else if (effect === 'failing') this.health.failing(`HTTP ${status}`);
    else if (effect === 'credentials refused') this.health.credentialsRefused(outcome.accepted ? '20003' : outcome.code);
    else if (effect === 'throttled' && !outcome.accepted) {
      const waitMs = outcome.retryAfterMs ?? 0;
      this.pacer.pauseUntil(Date.now() + waitMs);
      this.health.throttled(waitMs, outcome.detail);
    }
    if (!outcome.accepted) return this.refused(submission, outcome);
    this.logger.debug({ sid: outcome.providerIds[0], segments: outcome.segments, to: maskPhone(submission.phone) }, 'the provider took the SMS');
    return outcome;
  }

  private refused(submission: UpstreamSubmission, outcome: Extract<SubmitOutcome, { accepted: false }>): SubmitOutcome {
    this.logger.debug({ smsId: submission.smsId, to: maskPhone(submission.phone), retry: outcome.retry, code: outcome.code }, 'the provider did not take the SMS');
    return outcome;
  }

  private stateChanged(status: LinkStatus): void {
    const line = { state: status.state, detail: status.detail };
    if (status.state === 'down') this.logger.warn(line, 'Twilio link down');
    else this.logger.info(line, 'Twilio link state changed');
    this.events.stateChanged(status);
  }
}
