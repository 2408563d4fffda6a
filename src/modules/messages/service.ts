// Creating, cancelling and reading SMS. A stored SMS is a committed row before the client hears
// 201 (architecture decision 1); getting it to a phone is the delivery module's job, which hears of
// it through the "sms.queued" event once the row is committed.
import { randomUUID } from 'node:crypto';
import type { Database, Executor } from '../../storage/database.ts';
import { AppError, invalidField, type ErrorCode, type ErrorDetail, orNotFound } from '../../common/errors.ts';
import type { DomainEvents } from '../../events/domain-events.ts';
import type { MessagesEvents } from './domain-events.ts';
import type { Clock } from '../../common/clock.ts';
import { newObjectId } from '../../common/object-id.ts';
import { normalizePhone } from '../../common/phone.ts';
import type { Cursor } from '../../storage/paging.ts';
import type { DeviceService } from '../devices/service.ts';
import type { SmsWriter } from './sms-writer.ts';
import * as messages from './repository.ts';
import * as deletions from './deletions.ts';
import { searchWithTotal, type PageRequest, type SearchPage } from './search.ts';
import { Slices } from './slices.ts';
import { checkCiphertext, checkDataPayload } from './special-payloads.ts';
import { capabilityNeedOf } from './capability-need.ts';
import type { CapabilityNeed } from '../devices/capabilities.ts';
import type { SmsWayIn } from './types.ts';
import type { SmsCategory } from './category.ts';

export interface NewSms {
  phone: string;
  message: string;
  deviceId?: string | undefined;
  noStore?: boolean | undefined;
  simSlot?: number | null | undefined;
  callbackId?: string | null | undefined;
  /** ISO 8601: not sent before. */
  sendAt?: string | undefined;
  /** ISO 8601: not taken by a phone by then, it ends as failed_send (expired). */
  validUntil?: string | undefined;
  /** Seconds from now; the alternative to validUntil. */
  ttl?: number | undefined;
  priority?: number | undefined;
  /** What the client says the SMS is, for the routes. */
  category?: SmsCategory | undefined;
  /** Name of the phone field in the caller's API, for error messages. */
  phoneField?: string;
  /**
   * phone and message are end-to-end ciphertext (docs/encryption.md): checked for the format,
   * never read, so the recipient is not normalized or checked as a number.
   */
  encrypted?: boolean | undefined;
  /** With encrypted: the fingerprint of the passphrase it was encrypted with; only a device holding it is handed the SMS. */
  passphraseFingerprint?: string | undefined;
  /** An MMS (its parts are the MMS module's): only a device that sends MMS may take it. */
  mms?: boolean | undefined;
  /** A data SMS: a binary payload (base64) for an application port; message is then empty. */
  data?: { base64: string; port: number } | undefined;
  /** Skips the suppression list: a key with sms:send_transactional, an opt-out confirmation. */
  transactional?: boolean | undefined;
  /** How it came in; absent: the Extended API. */
  wayIn?: SmsWayIn | undefined;
  /** A fleet health check between the account's own SIMs (kind 'canary'): listed only when asked for. */
  canary?: boolean | undefined;
}

/** Whether a callback_id names a webhook of the account (the webhooks feature answers). */
export interface CallbackDirectory {
  exists(accountId: string, callbackId: string): Promise<boolean>;
}

/** Which recipients the account must not send to: those that opted out (the opt-out module answers). */
export interface SuppressionCheck {
  suppressedAmong(accountId: string, phones: string[]): Promise<Set<string>>;
}

/** Hands a no_store SMS to a device with room now (the delivery module answers). */
export interface TransientDispatch {
  takeTransient(accountId: string, deviceId?: string, trx?: Executor, need?: CapabilityNeed): Promise<string | undefined>;
}

export interface PreparedSms {
  sms: messages.SmsRecord;
  /** A no_store SMS leaves no record: it is handed to a device now or refused. */
  noStore: boolean;
}

/** One input of a batch, checked: its prepared SMS, or what is wrong with it. */
export type CheckedSms =
  | { index: number; prepared: PreparedSms; errors?: undefined }
  | { index: number; code: string; errors: { field: string; message: string; code?: ErrorCode }[]; prepared?: undefined };

/** A bad input of a batch: the error code a single send would have answered, and each problem. */
export type RefusedRow = Extract<CheckedSms, { errors: unknown[] }>;

/** The 400 of a batch with bad rows: a detail per problem, field "messages.{index}...". */
function batchRefused(bad: CheckedSms[], total: number): AppError {
  const details = bad.flatMap(({ index, errors }) =>
    errors!.map((detail) => ({
      field: `messages.${index}${detail.field ? `.${detail.field}` : ''}`,
      message: `message ${index}: ${detail.message}`,
      ...(detail.code ? { code: detail.code } : {}),
    })),
  );
  return new AppError('validation_failed', `${bad.length} of ${total} messages are invalid; nothing was sent`, details);
}

/**
 * Why a row to a suppressed number is refused, for people: words first, since the panel and the
 * command line show it as it is. Programs branch on the detail's code, recipient_opted_out.
 */
export const OPTED_OUT_DETAIL = 'the recipient has opted out (sent STOP or was added to the suppression list)';
const OPTED_OUT_PROBLEM = { message: OPTED_OUT_DETAIL, code: 'recipient_opted_out' } as const;

/**
 * The device group a new SMS is kept for until the account's routes first look at it, and by when
 * they are to look (null: any phone may take it at once): the routes' first rule for it may be a
 * device group's or an upstream's, and a phone outside it must not take the SMS in the moment
 * before that look.
 */
export interface FirstHold {
  of(sms: messages.SmsRecord): { group: string; lookBy: Date } | null;
}

/** The furthest ahead an SMS may be scheduled or kept valid. */
const MAX_AHEAD_MS = 366 * 24 * 60 * 60 * 1000;

export class MessageService {
  constructor(
    private readonly db: Database,
    private readonly devices: DeviceService,
    private readonly transient: TransientDispatch,
    private readonly writer: SmsWriter,
    private readonly events: DomainEvents<MessagesEvents>,
    private readonly clock: Clock,
    private readonly defaultPhoneRegion: string | undefined,
    /** Which callback_id names a webhook; without webhooks none does. */
    private readonly callbacks: CallbackDirectory = { exists: async () => false },
    /** Who opted out; without opt-out nobody did. */
    private readonly suppressions: SuppressionCheck = { suppressedAmong: async () => new Set() },
    /** Which phones may take a new SMS before the account's routes first look at it; without routes any. */
    private readonly firstHold: FirstHold = { of: () => null },
  ) {}

  /** Creates one SMS (or, with no_store, hands it to a device now). */
  async create(accountId: string, input: NewSms): Promise<messages.SmsRecord> {
    const [sms] = await this.commit([await this.prepare(accountId, input)]);
    return sms!;
  }

  /** Creates many SMS in one transaction, or none (see prepareMany). */
  async createMany(accountId: string, inputs: NewSms[]): Promise<messages.SmsRecord[]> {
    return this.commit(await this.prepareMany(accountId, inputs));
  }

  /**
   * Writes prepared SMS, all in one transaction, and announces them once it commits. Inside
   * `trx` (the transaction holding an Idempotency-Key) everything happens on it; without one a
   * single SMS joins the coalesced insert. A no_store SMS is handed to a device instead.
   */
  async commit(prepared: PreparedSms[], trx?: Executor): Promise<messages.SmsRecord[]> {
    if (prepared.length === 1 && prepared[0]!.noStore) return [await this.sendTransient(prepared[0]!.sms, trx)];
    const rows = prepared.map((entry) => entry.sms);
    if (!trx && rows.length === 1) {
      await this.writer.write(rows[0]!);
      void this.events.emit('sms.queued', rows[0]!);
      return rows;
    }
    const write = async (executor: Executor) => {
      await messages.insertSms(executor, rows, 'api');
      for (const sms of rows) await this.events.written(executor, 'sms.queued', sms);
    };
    if (trx) await write(trx);
    else await this.db.transaction(write);
    return rows;
  }

  /**
   * Checks every input first; any problem fails the whole batch with a detail per bad row
   * (field "messages.{index}..."), and nothing is written.
   */
  async prepareMany<T = NewSms>(accountId: string, inputs: T[], read: (input: T) => NewSms = (input) => input as NewSms): Promise<PreparedSms[]> {
    const checked = await this.checkMany(accountId, inputs, read);
    const bad = checked.filter((entry) => entry.errors !== undefined);
    if (bad.length > 0) throw batchRefused(bad, inputs.length);
    return checked.map((entry) => entry.prepared!);
  }

  /**
   * A partial send: the SMS of the valid inputs (in the order given, with their index) and each
   * bad input's problems. When no input is valid there is nothing to send, and the batch is
   * refused as prepareMany refuses it.
   */
  async prepareValid<T = NewSms>(
    accountId: string,
    inputs: T[],
    read: (input: T) => NewSms = (input) => input as NewSms,
  ): Promise<{ valid: { index: number; prepared: PreparedSms }[]; refused: RefusedRow[] }> {
    const checked = await this.checkMany(accountId, inputs, read);
    const refused = checked.filter((entry): entry is RefusedRow => entry.errors !== undefined);
    const valid = checked.flatMap((entry) => (entry.prepared ? [{ index: entry.index, prepared: entry.prepared }] : []));
    if (valid.length === 0) throw batchRefused(refused, inputs.length);
    return { valid, refused };
  }

  /**
   * Checks each input with the rules of a single send (and `read`, the caller's own checks):
   * each answers its prepared SMS or its problems (field relative to the message). Nothing is
   * written: bulk sends (prepareMany) and their dry runs share this.
   */
  async checkMany<T = NewSms>(accountId: string, inputs: T[], read: (input: T) => NewSms = (input) => input as NewSms): Promise<CheckedSms[]> {
    // Suppressions are looked up once for the whole batch, after every row is checked.
    const shared = { devices: new Map<string, Promise<string>>(), callbacks: new Map<string, Promise<boolean>>(), suppressionsLater: true };
    const checked: CheckedSms[] = [];
    const transactional = new Set<number>();
    // A thousand messages, or text that is slow to check, must not hold other requests back.
    const slices = new Slices();
    for (const [index, input] of inputs.entries()) {
      await slices.pause();
      try {
        const sms = read(input);
        if (sms.noStore) throw invalidField('no_store', 'no_store is not available in bulk sends');
        if (sms.transactional) transactional.add(index);
        checked.push({ index, prepared: await this.prepare(accountId, sms, shared) });
      } catch (error) {
        if (!(error instanceof AppError) || error.status >= 500) throw error;
        const errors = (error.details ?? [{ field: '', message: error.message }]).map((detail) => ({ field: detail.field.replace(/^\//, ''), message: detail.message, ...(detail.code ? { code: detail.code } : {}) }));
        checked.push({ index, code: error.code, errors });
      }
    }
    return this.withoutSuppressed(accountId, checked, transactional);
  }

  /** The batch with every row to a suppressed recipient turned into a bad row: one query for all. */
  private async withoutSuppressed(accountId: string, checked: CheckedSms[], transactional: Set<number>): Promise<CheckedSms[]> {
    const phones = checked.filter((entry) => entry.prepared && !transactional.has(entry.index)).map((entry) => entry.prepared!.sms.phone);
    const suppressed = await this.suppressions.suppressedAmong(accountId, phones);
    if (suppressed.size === 0) return checked;
    return checked.map((entry) =>
      entry.prepared && !transactional.has(entry.index) && suppressed.has(entry.prepared.sms.phone)
        ? { index: entry.index, code: 'recipient_opted_out', errors: [{ field: 'phone', ...OPTED_OUT_PROBLEM }] }
        : entry,
    );
  }

  async get(accountId: string, id: string): Promise<messages.SmsRecord> {
    return orNotFound(messages.findSms(this.db, accountId, id), 'sms_not_found');
  }

  async getByAnyId(accountId: string, id: { uuid?: string; objectId?: string }): Promise<messages.SmsWithDevice> {
    return orNotFound(messages.findSmsByAnyId(this.db, accountId, id), 'sms_not_found');
  }

  /**
   * Deletes the record and its history. A phone that already took the task may still send it.
   * A tombstone keeps the SMS's ids (nothing of its content), so that the same account deleting
   * it again, a client retrying after a timeout that hid the first answer, succeeds again instead
   * of hearing its own success as an error; an id the account never had is still "not found".
   */
  async delete(accountId: string, id: { uuid?: string; objectId?: string }): Promise<'deleted' | 'already_deleted'> {
    const at = new Date(this.clock.now());
    const outcome = await this.db.transaction(async (trx) => {
      const deleted = await messages.deleteSms(trx, accountId, id);
      if (deleted) {
        await deletions.recordDeletion(trx, deleted, at);
        return 'deleted' as const;
      }
      // A delete running at the same time waits above for the row, then finds it gone and its
      // tombstone committed: both answer success.
      return (await deletions.wasDeleted(trx, accountId, id)) ? ('already_deleted' as const) : undefined;
    });
    if (!outcome) throw new AppError('sms_not_found');
    return outcome;
  }

  /** A page of the account's matching SMS, newest first, and how many match (exactly up to `page.countCap`). */
  search(accountId: string, search: messages.SmsSearch, page: PageRequest): Promise<SearchPage> {
    return searchWithTotal(this.db, accountId, search, page);
  }

  /** A page of the account's SMS; `filter.phone` is normalized as a recipient is (400 if it is no phone number). */
  list(accountId: string, filter: messages.SmsFilter, limit: number, cursor?: Cursor) {
    if (filter.phone !== undefined) {
      const phone = normalizePhone(filter.phone, this.defaultPhoneRegion);
      if (!phone) throw new AppError('invalid_phone', 'phone must be a valid phone number', [{ field: 'phone', in: 'query', message: 'phone must be a valid phone number' }]);
      filter = { ...filter, phone };
    }
    return messages.listSms(this.db, accountId, filter, limit, cursor);
  }

  /** The SMS to one number exactly as stored (a conversation's key), newest first, without normalizing it again. */
  listToNumber(accountId: string, phone: string, limit: number, cursor?: Cursor): Promise<messages.SmsRecord[]> {
    return messages.listSms(this.db, accountId, { phone }, limit, cursor);
  }

  /** The account's SMS with these ids (a conversation's newest), with their devices and reported SIM slots. */
  findManyWithDevice(accountId: string, ids: string[]): Promise<messages.SmsWithDevice[]> {
    return messages.findManyWithDevice(this.db, accountId, ids);
  }

  /** Retention: redacts a batch of the account's SMS older than `before` (see repository); answers how many. */
  redactBefore(accountId: string, before: Date, batch: number, hash?: (phone: string) => string): Promise<number> {
    return messages.redactBefore(this.db, accountId, before, new Date(this.clock.now()), batch, hash);
  }

  /** Export: the account's SMS oldest first, a page after `cursor`. */
  pageForExport(accountId: string, limit: number, cursor?: Cursor): Promise<messages.SmsRecord[]> {
    return messages.pageForExport(this.db, accountId, limit, cursor);
  }

  history(smsId: string) {
    return messages.historyOf(this.db, smsId);
  }

  /**
   * Checks an input and builds its row; nothing is written, and nothing is read inside a
   * transaction (the embedded database has one connection). Lookups may be shared by a batch.
   */
  async prepare(
    accountId: string,
    input: NewSms,
    shared?: { devices: Map<string, Promise<string>>; callbacks: Map<string, Promise<boolean>>; suppressionsLater?: boolean },
  ): Promise<PreparedSms> {
    const phoneField = input.phoneField ?? 'phone';
    if (input.encrypted) {
      checkCiphertext(phoneField, input.phone);
      checkCiphertext('message', input.message);
    }
    if (input.data) checkDataPayload('data', input.data.base64);
    const phone = input.encrypted ? input.phone : normalizePhone(input.phone, this.defaultPhoneRegion);
    if (!phone) {
      const hint = this.defaultPhoneRegion ? '' : ' in international format, such as +79161234567';
      throw invalidField(phoneField, `${phoneField} must be a valid phone number${hint}`, 'invalid_phone');
    }
    const now = this.clock.now();
    const { sendAt, expiresAt } = this.schedule(input, now);

    // Every way of sending comes through here: a number that opted out is refused, whatever the API.
    if (!input.transactional && !shared?.suppressionsLater && (await this.suppressions.suppressedAmong(accountId, [phone])).has(phone)) {
      throw new AppError('recipient_opted_out', undefined, [{ field: phoneField, ...OPTED_OUT_PROBLEM }]);
    }

    if (input.callbackId) {
      const lookup = () => this.callbacks.exists(accountId, input.callbackId!);
      const exists = await memo(shared?.callbacks, input.callbackId, lookup);
      if (!exists) throw invalidField('callback_id', 'callback_id does not name a webhook of this account', 'unknown_callback');
    }

    let deviceId: string | null = null;
    if (input.deviceId) {
      deviceId = await memo(shared?.devices, input.deviceId.toLowerCase(), async () => {
        const device = await this.devices.get(accountId, input.deviceId!).catch((error: unknown) => {
          throw error instanceof AppError ? new AppError(error.code, error.message, [{ field: 'device_id', message: 'device_id names no device of this account' }]) : error;
        });
        if (!device.can_send_sms) {
          const message = `device ${device.id} is not allowed to send SMS (can_send_sms is false)`;
          throw new AppError('device_cannot_send', message, [{ field: 'device_id', message }]);
        }
        return device.id;
      });
    }

    // An MMS, data SMS or encrypted SMS that no device could ever send is refused now, rather
    // than waiting for one and failing on a phone that cannot (409 device_not_capable, no_capable_device).
    const need = capabilityNeedOf({
      kind: input.mms ? 'mms' : input.data ? 'data' : 'text',
      is_encrypted: Boolean(input.encrypted),
      passphrase_fingerprint: input.passphraseFingerprint ?? null,
    });
    if (need) await this.devices.requireCapable(accountId, need, deviceId ?? undefined);

    const created = new Date(now);
    const sms: messages.SmsRecord = {
      id: randomUUID(),
      object_id: newObjectId(now),
      account_id: accountId,
      device_id: deviceId,
      device_named: deviceId !== null,
      phone,
      message: input.message,
      status: 'pending',
      sim_slot: input.simSlot ?? null,
      callback_id: input.callbackId ?? null,
      send_at: sendAt,
      expires_at: expiresAt,
      priority: input.priority ?? 0,
      dispatched_at: null,
      reason: null,
      created_at: created,
      updated_at: created,
      kind: input.canary ? 'canary' : input.mms ? 'mms' : input.data ? 'data' : 'text',
      is_encrypted: Boolean(input.encrypted),
      data: input.data?.base64 ?? null,
      data_port: input.data?.port ?? null,
      transactional: Boolean(input.transactional),
      way_in: input.wayIn ?? 'api',
      category: input.category ?? null,
      ...(input.encrypted && input.passphraseFingerprint !== undefined ? { passphrase_fingerprint: input.passphraseFingerprint } : {}),
    };
    // Kept for a device group from the start when the account's routes say so: a phone outside it
    // could otherwise take it before the router first looks (an in-memory look; none without routes).
    const hold = input.noStore ? null : this.firstHold.of(sms);
    if (hold) {
      sms.device_group = hold.group;
      sms.route_check_at = hold.lookBy;
    }
    return { sms, noStore: Boolean(input.noStore) };
  }

  /** send_at, and valid_until or ttl, as times; each checked against the others and now. */
  private schedule(input: NewSms, now: number): { sendAt: Date | null; expiresAt: Date | null } {
    if (input.validUntil !== undefined && input.ttl !== undefined) {
      throw invalidField('ttl', 'give valid_until or ttl, not both');
    }
    const sendAt = input.sendAt !== undefined ? new Date(input.sendAt) : null;
    if (sendAt && sendAt.getTime() - now > MAX_AHEAD_MS) throw invalidField('send_at', 'send_at must be within a year from now');
    let expiresAt: Date | null = null;
    if (input.validUntil !== undefined) {
      expiresAt = new Date(input.validUntil);
      if (expiresAt.getTime() <= now) throw invalidField('valid_until', 'valid_until must be in the future');
    } else if (input.ttl !== undefined) {
      expiresAt = new Date(now + input.ttl * 1000);
    }
    if (expiresAt && expiresAt.getTime() - now > MAX_AHEAD_MS) throw invalidField('valid_until', 'the SMS may be valid for at most a year');
    if (expiresAt && sendAt && expiresAt <= sendAt) {
      throw invalidField(input.ttl !== undefined ? 'ttl' : 'valid_until', 'the SMS would expire before send_at');
    }
    return { sendAt, expiresAt };
  }

  private async sendTransient(sms: messages.SmsRecord, trx?: Executor): Promise<messages.SmsRecord> {
    // A no_store SMS has no record and no retry queue. Rather than lose the SMS silently when no
    // device can take it this moment, refuse it so the client can retry or store it.
    if (sms.send_at && sms.send_at.getTime() > this.clock.now()) {
      throw invalidField('send_at', 'a no_store SMS is sent at once; it cannot be scheduled');
    }
    const deviceId = await this.transient.takeTransient(sms.account_id, sms.device_id ?? undefined, trx, capabilityNeedOf(sms));
    if (!deviceId) {
      throw new AppError(
        'no_device_available',
        'no_store SMS need an online device that may send and has room right now; none has. Retry later, or send without no_store so the gateway queues it.',
      );
    }
    const handed = { ...sms, device_id: deviceId, dispatched_at: new Date(this.clock.now()) };
    // Outside a transaction it is handed at once; inside one (an Idempotency-Key's), once it commits.
    await this.events.written(trx ?? this.db, 'sms.transient', handed);
    return handed;
  }
}

function memo<T>(cache: Map<string, Promise<T>> | undefined, key: string, load: () => Promise<T>): Promise<T> {
  if (!cache) return load();
  let value = cache.get(key);
  if (!value) cache.set(key, (value = load()));
  return value;
}
