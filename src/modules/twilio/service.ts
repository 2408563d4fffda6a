// Twilio credentials (an AccountSid and an auth token per credential, several per account) and
// the callbacks they sign. The token signs what the gateway sends (X-Twilio-Signature), so it is
// sealed with the webhooks' SecretBox, never hashed; it is shown once, at creation or rotation,
// and compared in constant time. Callbacks are webhooks of the "twilio" format (one per credential
// and URL), so the outbox retries them, keeps an SMS's in order and checks every destination.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Database, Executor } from '../../storage/database.ts';
import type { Logger } from '../../common/logger.ts';
import { AppError } from '../../common/errors.ts';
import { SecretUnreadableError, type SecretBox } from '../webhooks/outbound/secret-box.ts';
import { credentialUnreadable } from './errors.ts';
import type { FormattedDelivery } from '../webhooks/registration/service.ts';
import { changesCameIn, type SmsStatusChange } from '../delivery/status-change.ts';
import type { IncomingSmsRow } from '../incoming/types.ts';
import { inboundParams, statusCallbackParams, twilioSteps } from './callback-params.ts';
import { isAccountSid, newAccountSid, newAuthToken } from './sids.ts';
import type { TwilioStatus } from './statuses.ts';
import * as twilio from './repository.ts';
import type { DeviceService } from '../devices/service.ts';

export type CredentialRow = twilio.CredentialRow;

/** What this module asks of the webhooks module: webhooks of its own format, and their deliveries. */
export interface CallbackWebhooks {
  createFormatted(accountId: string, format: 'twilio', url: string, secret: string, description: string): Promise<string>;
  resealFormatted(accountId: string, ids: string[], secret: string): Promise<void>;
  reviveFormatted(accountId: string, id: string): Promise<void>;
  deleteFormatted(accountId: string, ids: string[]): Promise<void>;
  recordFormatted(trx: Executor, deliveries: FormattedDelivery[]): Promise<void>;
  wakeSender(): void;
}

/** A request that proved its credential. */
export interface TwilioCaller {
  accountId: string;
  sid: string;
  authToken: string;
}

/** The StatusCallbacks of a batch with no SMS sent through the Twilio API: one empty list, shared, so frozen. */
const NO_CALLBACKS: readonly FormattedDelivery[] = Object.freeze([]);

export class TwilioService {
  constructor(
    private readonly db: Database,
    private readonly secrets: SecretBox,
    private readonly webhooks: CallbackWebhooks,
    private readonly logger: Logger,
    /** Checks that the devices a credential is scoped to are the account's. */
    private readonly devices: Pick<DeviceService, 'get'>,
  ) {}

  async create(
    accountId: string,
    input: { friendlyName?: string | undefined; smsUrl?: string | undefined; deviceIds?: string[] | undefined },
  ): Promise<{ credential: CredentialRow; authToken: string }> {
    const deviceIds: string[] = [];
    const given = input.deviceIds ?? [];
    for (const [index, deviceId] of given.entries()) {
      // A device named twice is taken once.
      if (given.indexOf(deviceId) !== index) continue;
      const device = await this.devices.get(accountId, deviceId).catch((error: unknown) => {
        const field = `device_ids.${index}`;
        throw error instanceof AppError ? new AppError(error.code, error.message, [{ field, message: `${field} names no device of this account` }]) : error;
      });
      deviceIds.push(device.id);
    }
    const sid = newAccountSid();
    const authToken = newAuthToken();
    // The inbound URL is checked (as every webhook's) before anything is written.
    const smsWebhook = input.smsUrl ? await this.webhooks.createFormatted(accountId, 'twilio', input.smsUrl, authToken, `Twilio inbound of ${sid}`) : undefined;
    const credential = await twilio.insertCredential(this.db, {
      sid,
      account_id: accountId,
      auth_token_encrypted: this.secrets.seal(authToken),
      friendly_name: input.friendlyName ?? '',
      sms_url: input.smsUrl ?? null,
      device_ids: deviceIds,
    });
    if (smsWebhook) await twilio.insertCallback(this.db, sid, input.smsUrl!, smsWebhook);
    this.logger.info({ accountSid: sid, accountId }, 'twilio credential created');
    return { credential, authToken };
  }

  list(accountId: string | undefined, limit = 1000): Promise<CredentialRow[]> {
    return twilio.listCredentials(this.db, accountId, limit);
  }

  async get(accountId: string, sid: string): Promise<CredentialRow> {
    const row = isAccountSid(sid) ? await twilio.findCredential(this.db, sid) : undefined;
    if (!row || row.account_id !== accountId) throw new AppError('twilio_credential_not_found');
    return row;
  }

  /** A new auth token; the old one stops working at once, and the callbacks are signed with the new one from now on. */
  async rotate(accountId: string, sid: string): Promise<{ credential: CredentialRow; authToken: string }> {
    await this.get(accountId, sid);
    const authToken = newAuthToken();
    const credential = await twilio.updateToken(this.db, accountId, sid, this.secrets.seal(authToken));
    if (!credential) throw new AppError('twilio_credential_not_found');
    await this.webhooks.resealFormatted(accountId, await twilio.callbackWebhooksOf(this.db, sid), authToken);
    this.logger.info({ accountSid: sid, accountId }, 'twilio auth token rotated');
    return { credential, authToken };
  }

  /** Deletes the credential and its callbacks (what they still had to send is dropped). */
  async delete(accountId: string, sid: string): Promise<void> {
    await this.get(accountId, sid);
    const webhooks = await twilio.callbackWebhooksOf(this.db, sid);
    if (!(await twilio.deleteCredential(this.db, accountId, sid))) throw new AppError('twilio_credential_not_found');
    await this.webhooks.deleteFormatted(accountId, webhooks);
    this.logger.info({ accountSid: sid, accountId }, 'twilio credential deleted');
  }

  /** The caller of an AccountSid and auth token; undefined unless both match (compared in constant time). */
  async authenticate(sid: string, presented: string): Promise<TwilioCaller | undefined> {
    if (!isAccountSid(sid)) return undefined;
    const row = await twilio.findCredential(this.db, sid);
    if (!row) return undefined;
    const authToken = this.openToken(row);
    const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();
    if (!timingSafeEqual(digest(presented), digest(authToken))) return undefined;
    return { accountId: row.account_id, sid, authToken };
  }

  /**
   * The credential's auth token in clear. One sealed under another key (a command run with another
   * DATA_DIR, a key changed since) can never be opened: the credential is marked so, which its
   * view shows, said once in the log, and its requests are refused with what to do.
   */
  private openToken(row: CredentialRow): string {
    try {
      return this.secrets.open(row.auth_token_encrypted);
    } catch (error) {
      if (!(error instanceof SecretUnreadableError)) throw error;
      if (!row.auth_token_unreadable_at) {
        void twilio.markTokenUnreadable(this.db, row.sid, new Date()).then(
          (marked) => marked && this.logger.error({ accountSid: row.sid, accountId: row.account_id }, 'twilio credential unusable: its auth token cannot be decrypted with this gateway\'s key; rotate it'),
          (failed: unknown) => this.logger.warn({ err: failed, accountSid: row.sid }, 'twilio credential could not be marked unreadable'),
        );
      }
      throw credentialUnreadable();
    }
  }

  /** The webhook a StatusCallback URL of this credential is delivered through (made on first use; 400 for a refused URL). */
  async callbackWebhook(caller: TwilioCaller, url: string): Promise<string> {
    const known = await twilio.findCallback(this.db, caller.sid, url);
    if (known) {
      // Disabled by the sender after failing too long or a 410: Twilio never stops calling a
      // StatusCallback a new message names, so neither does the gateway.
      await this.webhooks.reviveFormatted(caller.accountId, known);
      return known;
    }
    const made = await this.webhooks.createFormatted(caller.accountId, 'twilio', url, caller.authToken, `Twilio StatusCallback of ${caller.sid}`);
    const kept = await twilio.insertCallback(this.db, caller.sid, url, made);
    // Another request made one for the same URL first: keep theirs.
    if (kept !== made) await this.webhooks.deleteFormatted(caller.accountId, [made]);
    return kept;
  }

  /**
   * Remembers SMS created with a StatusCallback and records their first callback ("queued"), in
   * the transaction that stores them.
   */
  async track(trx: Executor, caller: TwilioCaller, callbackWebhookId: string, sms: { id: string; phone: string; device_id: string | null; status: TwilioStatus }[]): Promise<void> {
    await twilio.insertTrackedSms(trx, sms.map((each) => ({ sms_id: each.id, credential_sid: caller.sid, callback_webhook_id: callbackWebhookId })));
    await this.webhooks.recordFormatted(
      trx,
      sms.map((each) => ({ accountId: caller.accountId, webhookId: callbackWebhookId, smsId: each.id, body: statusCallbackParams(caller.sid, each, each.status, null).toString() })),
    );
  }

  /**
   * The StatusCallbacks that status changes call for, one per Twilio status each tracked SMS
   * passes; the webhooks module writes them with the changes' other events, in their transaction.
   */
  readonly statusCallbacks = changesCameIn('twilio', NO_CALLBACKS, (trx, changes) => this.callbacksOfTwilioChanges(trx, changes));

  /** statusCallbacks, for the stored SMS sent through the Twilio API: the SMS of every other way in never get here. */
  private async callbacksOfTwilioChanges(trx: Executor, stored: SmsStatusChange[]): Promise<readonly FormattedDelivery[]> {
    const tracked = new Map((await twilio.trackedSms(trx, [...new Set(stored.map((change) => change.sms.id))])).map((row) => [row.sms_id, row]));
    const deliveries: FormattedDelivery[] = [];
    for (const change of stored) {
      const row = tracked.get(change.sms.id);
      if (!row) continue;
      for (const step of twilioSteps(change.from, change.path, change.reason)) {
        const body = statusCallbackParams(row.credential_sid, change.sms, step.status, step.errorCode).toString();
        deliveries.push({ accountId: change.sms.account_id, webhookId: row.callback_webhook_id, smsId: change.sms.id, body });
      }
    }
    return deliveries;
  }

  /**
   * Whether a TwiML answer to an incoming SMS may be sent: the first delivery to answer one with a
   * <Message> claims it (a row per incoming SMS, so across nodes too); the answers of the other
   * credentials that heard it are logged and dropped, so that the sender gets one reply.
   */
  async claimReply(incomingId: string, deliveryId: string): Promise<boolean> {
    const claimed = await twilio.claimReply(this.db, incomingId, deliveryId);
    if (!claimed) this.logger.info({ incomingId, deliveryId }, 'twilio TwiML reply dropped: another sms_url already answered this incoming SMS');
    return claimed;
  }

  /** Listens to "incoming.stored": the SMS goes to the sms_url of each of the account's credentials that has one and hears its device. */
  readonly incomingStored = {
    inTransaction: async (trx: Executor, sms: IncomingSmsRow) => {
      const targets = await twilio.inboundTargets(trx, sms.account_id, sms.device_id);
      await this.webhooks.recordFormatted(
        trx,
        targets.map((target) => ({ accountId: sms.account_id, webhookId: target.webhook_id, body: inboundParams(target.sid, sms).toString() })),
      );
    },
    committed: () => this.webhooks.wakeSender(),
  };
}
