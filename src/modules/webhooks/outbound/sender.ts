// Sends webhook deliveries: claims due rows, POSTs them signed (Standard Webhooks), and records
// the outcome. At least once: a receiver de-duplicates by the webhook-id header.
//
// - HTTP with undici: a keep-alive pool per origin, connect / headers / body timeouts, responses
//   read up to 64 KiB, their first 2 KiB kept with the attempt for the delivery log
//   (answer-excerpt.ts), redirects never followed, only http and https.
// - Any non-2xx answer or network error is retried with exponential backoff and jitter until the
//   delivery's retry window (WEBHOOK_RETRY_FOR) closes; 410 Gone disables the webhook.
// - A webhook is disabled by time, not by count: when an attempt fails and its endpoint has failed
//   every attempt for longer than WEBHOOK_DISABLE_AFTER (5 days by default). Counting attempts
//   disabled a busy webhook one second into an outage. Any success ends the streak, and makes the
//   webhook's deliveries that wait for a backoff due at once, so a backlog drains when the
//   receiver is back instead of when each backoff runs out.
// - A disabled webhook's deliveries wait, parked where no claim reads them (they are still
//   written: ordering/outbox.ts, ordering/parking.ts), and go out when it is switched back on;
//   those whose retry window closes first are given up by the sweep here.
//   Disabling is logged as a warning and emitted as "disabled".
// - The destination is checked again at every send (DestinationGuard): literal addresses here
//   (once per URL: the guard's answer for one never changes), resolved names in each
//   connection's own DNS lookup.
// - The deliveries of one SMS to one webhook go out in order: the claim takes only the head of
//   each (webhook, SMS) chain, the next becomes the head when the outcome of the previous one is
//   recorded as delivered or given up, and the sender is woken then to send it
//   (ordering/chain-heads.ts).
// - A slow receiver holds back only its own chains: each attempt's outcome is recorded as it
//   ends, with whatever else ended within a few milliseconds (one transaction for the group), and
//   a place freed by an attempt is taken by the next due delivery. Recording a claimed batch only
//   once its slowest attempt ended held the next event of every chain in it for up to the timeout.
import { OutageNotice } from '../../../common/outage-notice.ts';
import { EventEmitter } from 'node:events';
import { isIP } from 'node:net';
import { Agent, request } from 'undici';
import type { Database } from '../../../storage/database.ts';
import type { Logger } from '../../../common/logger.ts';
import type { Metrics } from '../../../common/metrics.ts';
import { meterWebhookAttempt } from './attempt-metrics.ts';
import type { WebhookConfig } from '../../../config.ts';
import type { DestinationGuard } from './destination-guard.ts';
import { SecretUnreadableError, type SecretBox } from './secret-box.ts';
import { signatureHeader } from './signature.ts';
import { answerExcerpt } from './answer-excerpt.ts';
import { parkDisabled, restoreMissingHeads, unparkRecentlyEnabled } from '../ordering/repository.ts';
import type { Chain } from '../ordering/chain-heads.ts';
import type { DeliveryFormat } from './delivery-format.ts';
import {
  claimDueDeliveries,
  disableWebhook,
  endStreaks,
  giveUpExpired,
  lockWebhooks,
  recordAttempts,
  recordFailures,
  type AttemptResult,
  type ClaimedDelivery,
  type DisabledWebhook,
} from '../repository.ts';

/** What one attempt came to: the status code, what went wrong, and the start of the answer's body. */
interface Outcome {
  code: number | null;
  error: string | null;
  /** Null when there was no answer (a refused connection, a timeout). */
  answer: string | null;
}

/** Most deliveries one claim takes. */
const BATCH = 128;
/** Attempts on their way at once, whatever claims they came from: claims wait for a place. */
const MAX_IN_FLIGHT = 3 * BATCH;
/** Once claims wait for places, how many must be free before the next claim: claims stay batches. */
const REFILL = BATCH / 4;
/**
 * How long an ended attempt waits for others to end before their outcomes are written together:
 * a fast receiver's answers to one claim go in one or two transactions, not one each, and a slow
 * receiver delays the recording of no one else's by more than this.
 */
const GATHER_MS = 3;
/** Longest pause between retries. */
const MAX_BACKOFF_MS = 60 * 60 * 1000;
/** A receiver's answer is read up to this size, then dropped. */
const MAX_RESPONSE_BYTES = 64 * 1024;
const SWEEP_INTERVAL_MS = 1_000;
/** The disabled_reason of a webhook whose secret cannot be decrypted: what to do about it. */
export const SECRET_UNREADABLE_REASON =
  'its signing secret cannot be decrypted with this gateway\'s key (sealed under another WEBHOOK_SECRET_KEY or DATA_DIR): rotate the secret, then switch it back on';

/** An attempt that ended, waiting to be recorded; `claimedAt`: when its delivery was claimed. */
interface Ended {
  delivery: ClaimedDelivery;
  outcome: Outcome;
  claimedAt: number;
}

/**
 * "recorded": the outcomes of a group of attempts that ended together are written (for operators'
 * tools and tests);
 * "disabled": the gateway disabled these webhooks (410 Gone, or failing too long);
 * "expired": deliveries of disabled webhooks were given up, their retry window closed.
 */
export class WebhookSender extends EventEmitter<{
  recorded: [results: AttemptResult[]];
  disabled: [webhooks: DisabledWebhook[]];
  expired: [deliveries: { id: string; webhook_id: string }[]];
}> {
  private readonly agent: Agent;
  private readonly opened = new Map<string, string>();
  private readonly targets = new Map<string, { url: URL; refused: boolean }>();
  /** The claim being made, if any: one at a time. */
  private claiming: Promise<void> | undefined;
  /** Something may be due that no claim has looked for yet (woken while claiming, or while full). */
  private again = false;
  private inFlight = 0;
  /** Attempts that ended and wait to be recorded, in the order they ended. */
  private ended: Ended[] = [];
  /** The recording being gathered or written, if any: one at a time, the next one gathers meanwhile. */
  private recording: Promise<void> | undefined;
  /** Claims, attempts and recordings under way: what stop() waits for. */
  private readonly busy = new Set<Promise<unknown>>();
  private stopped = false;
  private timer: NodeJS.Timeout | undefined;
  private sweeping = false;
  private lastExpirySweep = 0;
  /** Both loops fail each tick while the database is unreachable: one line per outage, not per tick. */
  private outage: OutageNotice | undefined;

  constructor(
    private readonly db: Database,
    private readonly secrets: SecretBox,
    private readonly guard: DestinationGuard,
    private readonly config: WebhookConfig,
    private readonly metrics: Metrics,
    private readonly logger: Logger,
    /** The formats other than the standard one, by name (webhooks.format). */
    private readonly formats: ReadonlyMap<string, DeliveryFormat> = new Map(),
  ) {
    super();
    this.agent = new Agent({
      connections: 32,
      keepAliveTimeout: 30_000,
      connect: { timeout: config.timeoutMs, lookup: guard.lookup },
      headersTimeout: config.timeoutMs,
      bodyTimeout: config.timeoutMs,
      maxResponseSize: MAX_RESPONSE_BYTES,
    });
  }

  start(): void {
    this.timer = setInterval(() => {
      this.wake();
      this.sweepWaiting();
    }, SWEEP_INTERVAL_MS);
    this.timer.unref();
    this.wake();
  }

  /** Something was queued (or may be due): send what is due now, as far as there are places. */
  wake(): void {
    if (this.stopped) return;
    if (this.claiming || this.inFlight >= MAX_IN_FLIGHT) {
      this.again = true;
      return;
    }
    this.again = false;
    this.claiming = this.track(this.claim()).finally(() => {
      this.claiming = undefined;
      if (this.again) this.wake();
    });
  }

  /** Stops claiming; the attempts on their way end and are recorded first: none is lost or sent twice. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    clearInterval(this.timer);
    while (this.busy.size > 0) await Promise.allSettled([...this.busy]);
    await this.agent.close();
  }

  private track<T>(work: Promise<T>): Promise<T> {
    this.busy.add(work);
    void work.finally(() => this.busy.delete(work)).catch(() => undefined);
    return work;
  }

  /**
   * Looks after the deliveries of disabled webhooks (one sweep at a time): gives up those whose
   * retry window closed, parks those that became due, and makes those of webhooks just switched
   * back on due (ordering/parking.ts). As often as it gives up, it also mends chains found with no
   * head.
   */
  private sweepWaiting(): void {
    if (this.stopped || this.sweeping) return;
    this.sweeping = true;
    const sweep = async () => {
      // Giving up reads every waiting delivery of each disabled webhook, so it runs only as often as
      // needed for none to be given up more than a twentieth of its retry window late (once a
      // minute for the default day; once a second for short windows).
      const expiryDue = Date.now() - this.lastExpirySweep >= Math.min(60_000, Math.max(SWEEP_INTERVAL_MS, this.config.retryForMs / 20));
      if (expiryDue) this.lastExpirySweep = Date.now();
      const expired = expiryDue ? await giveUpExpired(this.db, new Date()) : [];
      await parkDisabled(this.db);
      if ((await unparkRecentlyEnabled(this.db)) > 0) this.wake();
      if (expiryDue) this.mendHeadless(await restoreMissingHeads(this.db));
      return expired;
    };
    sweep()
      .then((expired) => {
        this.outageNotice().succeeded();
        if (expired.length === 0) return;
        this.metrics.count('webhook_deliveries_expired_total', 'deliveries given up while their webhook was disabled', {}, expired.length);
        this.logger.info({ deliveries: expired.length }, 'deliveries of disabled webhooks given up: retry window closed');
        this.emit('expired', expired);
      })
      .catch((error: unknown) => {
        if (!this.outageNotice().failed(error)) this.logger.error({ err: error }, 'webhook sweep failed; the next sweep retries');
      })
      .finally(() => (this.sweeping = false));
  }

  /**
   * Chains found with no head and given one back (ordering/chain-heads.ts): their events go out
   * now. Said as a warning, since no transaction should leave a chain so: it names a fault to look
   * for.
   */
  private mendHeadless(mended: Chain[]): void {
    if (mended.length === 0) return;
    this.metrics.count('webhook_chains_mended_total', 'delivery chains of an SMS found with no delivery to send next, and given one', {}, mended.length);
    this.logger.warn(
      { chains: mended.length, webhookIds: [...new Set(mended.map((chain) => chain.webhookId))].slice(0, 20) },
      'webhook delivery chains found with no delivery to send next; the first pending one of each goes out now',
    );
    this.wake();
  }

  /**
   * Claims due deliveries as long as there are places for them and a claim comes back full, and
   * starts their attempts; each attempt is recorded when it ends (recordEnded), not with the claim.
   */
  private async claim(): Promise<void> {
    try {
      while (!this.stopped) {
        const room = Math.min(BATCH, MAX_IN_FLIGHT - this.inFlight);
        if (room <= 0) {
          this.again = true;
          return;
        }
        // The lease outlasts one attempt with its timeouts, so nobody else takes the row meanwhile.
        const claimedAt = Date.now();
        const claimed = await claimDueDeliveries(this.db, room, 3 * this.config.timeoutMs + 5_000);
        this.outageNotice().succeeded();
        for (const delivery of claimed) this.send(delivery, claimedAt);
        // Fewer than asked: nothing more is due now.
        if (claimed.length < room) return;
      }
    } catch (error) {
      if (!this.outageNotice().failed(error)) this.logger.error({ err: error }, 'webhook dispatch failed; the sweep retries');
    }
  }

  private send(delivery: ClaimedDelivery, claimedAt: number): void {
    this.inFlight++;
    this.track(
      meterWebhookAttempt(this.metrics, () => this.attempt(delivery)).then((outcome) => {
        this.inFlight--;
        this.ended.push({ delivery, outcome, claimedAt });
        this.recordEnded();
        // A place is free: take more if some were left due for want of places, a few at once.
        if (this.again && (this.inFlight === 0 || MAX_IN_FLIGHT - this.inFlight >= REFILL)) this.wake();
      }),
    );
  }

  /**
   * Records the attempts that ended, in groups: the first waits GATHER_MS for others (not when
   * none is left on its way, or when stopping), and those that end while a group is written form
   * the next one. One transaction at a time: a webhook's row is locked by each (record()), and two
   * of this sender's would only wait for each other.
   */
  private recordEnded(): void {
    if (this.recording || this.ended.length === 0) return;
    const gathered = this.inFlight === 0 || this.stopped ? Promise.resolve() : new Promise<void>((resolve) => setTimeout(resolve, GATHER_MS));
    this.recording = this.track(
      gathered
        .then(() => {
          const group = this.ended;
          this.ended = [];
          return this.record(group);
        })
        .catch((error: unknown) => {
          // Lost outcomes only mean their deliveries are sent again once their leases run out.
          if (!this.outageNotice().failed(error)) this.logger.error({ err: error }, 'webhook outcomes could not be recorded; their deliveries are sent again');
        })
        .finally(() => {
          this.recording = undefined;
          this.recordEnded();
        }),
    );
  }

  private outageNotice(): OutageNotice {
    return (this.outage ??= new OutageNotice(this.logger, 'webhook sending paused, deliveries wait in the outbox'));
  }

  private async attempt(delivery: ClaimedDelivery): Promise<Outcome> {
    try {
      const { url, refused } = this.target(delivery.url);
      if (refused) return { code: null, error: 'destination address is not allowed', answer: null };
      const response = await request(url, {
        method: 'POST',
        dispatcher: this.agent,
        headers: this.headersOf(delivery),
        body: delivery.body,
      });
      const answer = await answerExcerpt(response.body, MAX_RESPONSE_BYTES);
      return { code: response.statusCode, error: response.statusCode >= 200 && response.statusCode < 300 ? null : `HTTP ${response.statusCode}`, answer };
    } catch (error) {
      if (error instanceof SecretUnreadableError) return this.secretUnreadable(delivery, error);
      const err = error as NodeJS.ErrnoException;
      return { code: null, error: (err.code ? `${err.code}: ` : '') + (err.message ?? 'request failed').slice(0, 300), answer: null };
    }
  }

  private headersOf(delivery: ClaimedDelivery): Record<string, string> {
    const format = this.formats.get(delivery.format);
    if (format) {
      return { 'user-agent': 'sms-gateway-webhooks/1', ...format.headers({ id: delivery.id, url: delivery.url, body: delivery.body, secret: this.open(delivery.secret_encrypted) }) };
    }
    const timestamp = Math.floor(Date.now() / 1000);
    return {
      'content-type': 'application/json',
      'user-agent': 'sms-gateway-webhooks/1',
      'webhook-id': delivery.id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signatureHeader(this.liveSecrets(delivery), delivery.id, timestamp, delivery.body),
    };
  }

  /** Hands the answers of accepted deliveries to their format, for formats whose receivers answer with work. */
  private handAnswers(claimed: ClaimedDelivery[], results: AttemptResult[]): void {
    claimed.forEach((delivery, i) => {
      const result = results[i]!;
      const answered = this.formats.get(delivery.format)?.answered;
      if (!answered || result.status !== 'delivered' || !result.answer) return;
      answered({ id: delivery.id, accountId: delivery.account_id, body: delivery.body, answer: result.answer }).catch((error: unknown) =>
        this.logger.warn({ err: error, deliveryId: delivery.id }, 'the answer to a delivery could not be acted on'),
      );
    });
  }

  /** The current secret, and the previous one while its rotation grace period lasts. */
  private liveSecrets(delivery: ClaimedDelivery): string[] {
    const secrets = [this.open(delivery.secret_encrypted)];
    if (delivery.previous_secret_encrypted && delivery.previous_secret_expires_at && delivery.previous_secret_expires_at > new Date()) {
      secrets.push(this.open(delivery.previous_secret_encrypted));
    }
    return secrets;
  }

  /**
   * A webhook whose secret this gateway's key cannot open (sealed under another key) could never
   * sign a delivery: retrying for the whole retry window would only fail the same way. It is
   * disabled with a reason that says so (the API shows it), said once in the log whichever of its
   * deliveries finds it first; its events wait, as any disabled webhook's, until a rotated secret
   * and a switch back on.
   */
  private async secretUnreadable(delivery: ClaimedDelivery, error: SecretUnreadableError): Promise<Outcome> {
    const disabled = await disableWebhook(this.db, delivery.webhook_id, SECRET_UNREADABLE_REASON, new Date()).catch(() => undefined);
    if (disabled) {
      this.logger.error({ webhookId: disabled.id, accountId: disabled.account_id, reason: disabled.disabled_reason }, 'webhook disabled: its signing secret cannot be decrypted with this gateway\'s key');
      this.metrics.count('webhooks_disabled_total', 'webhooks the gateway disabled');
      this.emit('disabled', [disabled]);
    }
    return { code: null, error: error.message, answer: null };
  }

  /**
   * The URL to send to, and whether its host is a literal address the guard refuses (literal
   * addresses never reach the DNS lookup where names are checked). Worked out once per URL, not
   * once per delivery: the guard's allowed hosts are fixed when it is made, so its answer for a
   * literal address never changes; names are still checked at every connection, by the lookup.
   */
  private target(rawUrl: string): { url: URL; refused: boolean } {
    let target = this.targets.get(rawUrl);
    if (target === undefined) {
      const url = new URL(rawUrl);
      const host = url.hostname.replace(/^\[|\]$/g, '');
      target = { url, refused: isIP(host) !== 0 && !this.guard.allowsName(host) && !this.guard.addressAllowed(host) };
      if (this.targets.size > 10_000) this.targets.clear();
      this.targets.set(rawUrl, target);
    }
    return target;
  }

  /** Decrypts a sealed secret once, not once per delivery (keyed by the sealed text itself). */
  private open(sealed: string): string {
    let secret = this.opened.get(sealed);
    if (secret === undefined) {
      if (this.opened.size > 10_000) this.opened.clear();
      this.opened.set(sealed, (secret = this.secrets.open(sealed)));
    }
    return secret;
  }

  /** Writes the outcomes of a group of ended attempts in one transaction. */
  private async record(group: Ended[]): Promise<void> {
    const now = Date.now();
    const claimed = group.map((ended) => ended.delivery);
    const results: AttemptResult[] = [];
    const failures = new Map<string, number>();
    const succeeded = new Set<string>();
    const gone = new Set<string>();
    claimed.forEach((delivery, i) => {
      const { code, error, answer } = group[i]!.outcome;
      const ok = code !== null && code >= 200 && code < 300;
      this.metrics.count('webhook_attempts_total', 'webhook delivery attempts, by outcome', { outcome: ok ? 'delivered' : code === 410 ? 'gone' : 'failed' });
      if (ok) {
        succeeded.add(delivery.webhook_id);
        results.push({ id: delivery.id, webhookId: delivery.webhook_id, status: 'delivered', statusCode: code, error: null, answer, nextAttemptAt: new Date(now) });
        return;
      }
      if (code === 410) {
        // The receiver says the endpoint is gone for good: stop sending to it.
        gone.add(delivery.webhook_id);
        results.push({ id: delivery.id, webhookId: delivery.webhook_id, status: 'failed', statusCode: code, error, answer, nextAttemptAt: new Date(now) });
        return;
      }
      failures.set(delivery.webhook_id, (failures.get(delivery.webhook_id) ?? 0) + 1);
      const next = now + backoff(delivery.attempts, this.config.retryBaseMs);
      const givingUp = next > delivery.retry_until.getTime();
      results.push({ id: delivery.id, webhookId: delivery.webhook_id, status: givingUp ? 'failed' : 'pending', statusCode: code, error, answer, nextAttemptAt: new Date(next) });
      this.logger.debug({ deliveryId: delivery.id, webhookId: delivery.webhook_id, attempt: delivery.attempts, error }, 'webhook attempt failed');
    });
    // A chain's head delivered or given up lets its next delivery go.
    const released = claimed.some((delivery, i) => delivery.ordering_key !== null && results[i]!.status !== 'pending');
    // Losing this record in a database crash only means the delivery is sent again: its commit
    // does not wait for the WAL flush (the lock's statement says so). The webhooks
    // are locked first, as a webhook's deletion locks them (the row, then its deliveries by
    // cascade): a deletion meanwhile waits for this record, or this record for it, never both.
    const disabled = await this.db.transaction(async (trx) => {
      const recoveredAt = await lockWebhooks(trx, [...new Set(claimed.map((delivery) => delivery.webhook_id))], true);
      // Asked of every webhook with a success, never skipped on what the lock read: that read does
      // not wait for a failure being recorded by another worker right now, the update does.
      const streaksEnded = await endStreaks(trx, [...succeeded], new Date(now));
      for (const id of streaksEnded) recoveredAt.set(id, new Date(now));
      // An attempt that began before its webhook recovered and failed was on its way while the
      // endpoint came back: it is retried at once, not after a backoff grown during the outage
      // (which the waiting deliveries were spared when the streak ended), and it starts no streak.
      results.forEach((result, i) => {
        const recovered = recoveredAt.get(result.webhookId);
        if (result.status !== 'pending' || !recovered || recovered.getTime() < group[i]!.claimedAt) return;
        result.nextAttemptAt = new Date(now);
        const left = (failures.get(result.webhookId) ?? 0) - 1;
        if (left > 0) failures.set(result.webhookId, left);
        else failures.delete(result.webhookId);
      });
      // The recovered webhooks' deliveries waiting out a backoff are made due with the outcomes,
      // their rows locked in the same pass (recordAttempts says why).
      await recordAttempts(trx, results, claimed, streaksEnded);
      const disabledNow: DisabledWebhook[] = [];
      for (const id of gone) {
        const row = await disableWebhook(trx, id, 'the receiver answered 410 Gone', new Date(now));
        if (row) disabledNow.push(row);
      }
      disabledNow.push(...(await recordFailures(trx, failures, new Date(now), this.config.disableAfterMs, duration(this.config.disableAfterMs))));
      return disabledNow;
    });
    for (const webhook of disabled) {
      // Ids and times only: never the URL (it may carry a token) or a secret.
      this.logger.warn(
        { webhookId: webhook.id, accountId: webhook.account_id, failingSince: webhook.failing_since?.toISOString() ?? null, reason: webhook.disabled_reason },
        'webhook disabled; its new events are kept and go out if it is switched back on within their retry window',
      );
      this.metrics.count('webhooks_disabled_total', 'webhooks the gateway disabled');
    }
    this.handAnswers(claimed, results);
    this.emit('recorded', results);
    if (disabled.length > 0) this.emit('disabled', disabled);
    // A head delivered or given up lets the next delivery of its SMS go: send it now, not at the
    // next sweep.
    if (released) this.wake();
  }
}

/** "5 days", "90 seconds": a duration as the disabled reason says it. */
export function duration(ms: number): string {
  const seconds = Math.round(ms / 1000);
  for (const [unit, size] of [['day', 86_400], ['hour', 3_600], ['minute', 60]] as const) {
    if (seconds >= size && seconds % size === 0) return `${seconds / size} ${unit}${seconds === size ? '' : 's'}`;
  }
  if (ms < 1000) return `${ms} ms`;
  return `${seconds} second${seconds === 1 ? '' : 's'}`;
}

/** Exponential backoff with full jitter in its upper half: base * 2^(attempt-1), capped at an hour. */
export function backoff(attempt: number, baseMs: number): number {
  const ceiling = Math.min(MAX_BACKOFF_MS, baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(ceiling / 2 + Math.random() * (ceiling / 2));
}
