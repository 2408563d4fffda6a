// Webhook management: create (the signing secret is shown once), read, change, delete, rotate
// the secret (the old one keeps signing for a day), the delivery log, and manual retry.
import type { Database, Executor } from '../../../storage/database.ts';
import type { DomainEvents } from '../../../events/domain-events.ts';
import type { WebhooksEvents } from '../domain-events.ts';
import { AppError, invalidField, orNotFound } from '../../../common/errors.ts';
import type { Cursor } from '../../../storage/paging.ts';
import { isUuid } from '../../../common/object-id.ts';
import type { DestinationGuard } from '../outbound/destination-guard.ts';
import type { SecretBox } from '../outbound/secret-box.ts';
import { newSigningSecret } from '../outbound/signature.ts';
import type { WebhookEvent } from '../event-contract.ts';
import { webhookTest } from './test-event.ts';
import { formattedEvent, type FormattedDelivery, type WebhookOutbox } from '../ordering/outbox.ts';
import * as webhooks from './repository.ts';
import { giveUpExpired, requeueDelivery, resumeWaiting } from '../repository.ts';

/** How long a rotated-out secret still signs deliveries, so receivers can switch over. */
export const ROTATION_GRACE_MS = 24 * 60 * 60 * 1000;

export type { FormattedDelivery } from '../ordering/outbox.ts';

export interface WebhookChanges {
  url?: string | undefined;
  events?: WebhookEvent[] | undefined;
  enabled?: boolean | undefined;
  description?: string | undefined;
}

export class WebhookService {
  constructor(
    private readonly db: Database,
    private readonly secrets: SecretBox,
    private readonly guard: DestinationGuard,
    private readonly retryForMs: number,
    /** Where test events are written, as every event is. */
    private readonly outbox: WebhookOutbox,
    /**
     * Told (as "webhooks.changed") whenever one of an account's webhooks is created, changed or
     * deleted here, and (as "webhooks.deliveries_due") when deliveries it wrote or brought back
     * may go out now: whoever sends them hears it.
     */
    private readonly events: DomainEvents<WebhooksEvents>,
  ) {}

  async create(accountId: string, input: { url: string; events: WebhookEvent[]; description?: string | undefined }) {
    await this.checkUrl(input.url);
    const secret = newSigningSecret();
    const webhook = await webhooks.insertWebhook(this.db, {
      account_id: accountId,
      url: input.url,
      events: [...new Set(input.events)],
      description: input.description ?? '',
      secret_encrypted: this.secrets.seal(secret),
    });
    void this.events.emit('webhooks.changed', { accountId });
    return { webhook, secret };
  }

  async get(accountId: string, id: string): Promise<webhooks.WebhookRow> {
    return orNotFound(webhooks.findWebhook(this.db, accountId, id), 'webhook_not_found');
  }

  list(accountId: string, limit: number, cursor?: Cursor) {
    return webhooks.listWebhooks(this.db, accountId, limit, cursor);
  }

  async update(accountId: string, id: string, changes: WebhookChanges): Promise<webhooks.WebhookRow> {
    if (changes.url !== undefined) await this.checkUrl(changes.url);
    const row = await this.db.transaction(async (trx) => {
      const updated = await webhooks.updateWebhook(trx, accountId, id, {
        ...(changes.url !== undefined ? { url: changes.url } : {}),
        ...(changes.events !== undefined ? { events: [...new Set(changes.events)] } : {}),
        ...(changes.description !== undefined ? { description: changes.description } : {}),
        // Switching a webhook back on starts its failure streak afresh.
        ...(changes.enabled === true ? { enabled: true, disabled_reason: null, disabled_at: null, consecutive_failures: 0, failing_since: null } : {}),
        ...(changes.enabled === false ? { enabled: false, disabled_reason: 'disabled through the API', disabled_at: new Date() } : {}),
      });
      if (!updated) throw new AppError('webhook_not_found');
      // Switched back on: what waited past its retry window while it was disabled is given up
      // (never sent late), in the same transaction, before any sender can claim it.
      if (changes.enabled === true) await giveUpExpired(trx, new Date(), id);
      return updated;
    });
    void this.events.emit('webhooks.changed', { accountId });
    if (changes.enabled === true) {
      // What it missed while disabled goes out now, including deliveries that were waiting out a
      // backoff when it was disabled.
      await resumeWaiting(this.db, [id]);
      this.deliveriesDue();
    }
    return row;
  }

  async delete(accountId: string, id: string): Promise<void> {
    if (!(await webhooks.deleteWebhook(this.db, accountId, id))) throw new AppError('webhook_not_found');
    void this.events.emit('webhooks.changed', { accountId });
  }

  /** A new secret; the previous one keeps signing (alongside) for ROTATION_GRACE_MS. */
  async rotateSecret(accountId: string, id: string): Promise<{ webhook: webhooks.WebhookRow; secret: string }> {
    const current = await this.get(accountId, id);
    const secret = newSigningSecret();
    const webhook = await webhooks.updateWebhook(this.db, accountId, id, {
      secret_encrypted: this.secrets.seal(secret),
      previous_secret_encrypted: current.secret_encrypted,
      previous_secret_expires_at: new Date(Date.now() + ROTATION_GRACE_MS),
    });
    return { webhook: webhook!, secret };
  }

  async deliveries(accountId: string, id: string, limit: number, cursor?: Cursor) {
    await this.get(accountId, id);
    return webhooks.listDeliveries(this.db, id, limit, cursor);
  }

  async retry(accountId: string, id: string, deliveryId: string): Promise<webhooks.DeliveryRow> {
    await this.get(accountId, id);
    const row = await requeueDelivery(this.db, id, deliveryId, new Date(Date.now() + this.retryForMs));
    if (!row) throw new AppError('delivery_not_found');
    this.deliveriesDue();
    return row;
  }

  /**
   * Sends a test event to this webhook alone, through the outbox and the sender like every event
   * (signed, retried, logged): the delivery answered lets the caller follow it in the log.
   */
  async sendTest(accountId: string, id: string): Promise<webhooks.DeliveryRow> {
    const webhook = await this.get(accountId, id);
    if (!webhook.enabled) {
      // Its deliveries wait while it is disabled: a test would prove nothing until it is enabled.
      throw new AppError('conflict', 'the webhook is disabled: enable it first, then send a test event');
    }
    const outbox = this.outbox;
    const envelope = webhookTest(accountId, webhook);
    const delivery = await this.db.transaction(async (trx) => {
      // The webhook's id as callback id routes the event to it alone, whatever events it takes.
      await outbox.record(trx, [{ envelope, callbackId: webhook.id }]);
      return webhooks.findDeliveryOfEvent(trx, webhook.id, envelope.id);
    });
    // Deleted between the read and the write: nothing was written for it.
    if (!delivery) throw new AppError('webhook_not_found');
    this.deliveriesDue();
    return delivery;
  }

  /**
   * A webhook of another format (../outbound/delivery-format.ts), owned by the module that asks:
   * it takes no events of its own, only the deliveries that module records for it
   * (recordFormatted). The URL is checked as every webhook's is (400 invalid_webhook_url).
   */
  async createFormatted(accountId: string, format: Exclude<webhooks.WebhookFormat, 'standard'>, url: string, secret: string, description: string): Promise<string> {
    await this.checkUrl(url);
    const row = await webhooks.insertWebhook(this.db, { account_id: accountId, url, description, events: [], secret_encrypted: this.secrets.seal(secret), format });
    return row.id;
  }

  /**
   * Switches a webhook of another format back on if the gateway disabled it (its owner uses it
   * again: a new SMS names its URL); what waited for it goes out, as when a webhook is re-enabled.
   */
  async reviveFormatted(accountId: string, id: string): Promise<void> {
    if (!(await webhooks.reviveFormatted(this.db, accountId, id))) return;
    await giveUpExpired(this.db, new Date(), id);
    await resumeWaiting(this.db, [id]);
    this.deliveriesDue();
  }

  /** A new secret for webhooks of another format (their module's credential was rotated). */
  resealFormatted(accountId: string, ids: string[], secret: string): Promise<void> {
    return webhooks.resealFormatted(this.db, accountId, ids, this.secrets.seal(secret));
  }

  deleteFormatted(accountId: string, ids: string[]): Promise<void> {
    return webhooks.deleteFormatted(this.db, accountId, ids);
  }

  /**
   * Writes deliveries of webhooks of another format, in the transaction of the change they report
   * (the outbox, as every event). An SMS's deliveries to one webhook go out in order, as its events
   * do. The sender is woken with wakeSender once that transaction commits.
   */
  async recordFormatted(trx: Executor, deliveries: FormattedDelivery[]): Promise<void> {
    await this.outbox.record(trx, deliveries.map(formattedEvent));
  }

  wakeSender(): void {
    this.deliveriesDue();
  }

  private deliveriesDue(): void {
    void this.events.emit('webhooks.deliveries_due', {});
  }

  /** Whether `id` names a webhook of the account (the legacy callback_id). */
  async exists(accountId: string, id: string): Promise<boolean> {
    return isUuid(id) && (await webhooks.findWebhook(this.db, accountId, id)) !== undefined;
  }

  /** Retention: a batch of the account's finished deliveries created before `before` are deleted; answers how many. */
  forgetDeliveriesBefore(accountId: string, before: Date, batch: number): Promise<number> {
    return webhooks.deleteFinishedDeliveriesBefore(this.db, accountId, before, batch);
  }

  private async checkUrl(url: string): Promise<void> {
    const refusal = await this.guard.refusal(url);
    if (refusal) throw invalidField('url', refusal, 'invalid_webhook_url');
  }

}
