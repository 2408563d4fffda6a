// MMS, out and in.
// - Out: an MMS is an sms row of kind 'mms' (written by the create-MMS use case through the
//   messages module), with its subject, recipients and parts here, written in the same
//   transaction. The phone's task names each part by a path it fetches it from (device
//   credentials, GET /api/device/v1/media/{id}).
// - In: a phone reports a received MMS on its `mms` topic with its parts' metadata (stored once
//   per the phone's own MMS id; its text then goes the way of a received SMS's, through
//   "incoming_mms.stored"), then uploads each part over HTTP. An MMS ends once every part is in,
//   or refused (too large, a type not kept), or given up on after INCOMING_MMS_PARTS_WAIT_MS:
//   "mms.received" is announced in the transaction that ends it (the webhook's), once, saying
//   which parts are missing and why. No MMS stays open for ever.
import type { Readable } from 'node:stream';
import { randomUUID } from 'node:crypto';
import type { Database, Executor } from '../../storage/database.ts';
import type { Cursor } from '../../storage/paging.ts';
import type { DomainEvents } from '../../events/domain-events.ts';
import type { MmsEvents } from './domain-events.ts';
import type { Clock } from '../../common/clock.ts';
import type { Logger } from '../../common/logger.ts';
import { AppError, type ErrorDetail } from '../../common/errors.ts';
import { isUuid } from '../../common/object-id.ts';
import { normalizePhone } from '../../common/phone.ts';
import type { DeviceRow } from '../devices/types.ts';
import type { MediaService } from './media-service.ts';
import { acceptedType, isLayout } from './media-type.ts';
import * as repository from './repository.ts';
import type { IncomingMms, IncomingMmsRow, IncomingPartRow, MediaRow, MissingReason, OutgoingMmsRow, OutgoingPartRow } from './types.ts';

/** Parts an MMS may carry, out or in. */
export const MAX_PARTS = 10;

/**
 * How long a received MMS waits for its parts after its report. Phones upload them right after
 * reporting (retrying through a lost connection); an hour outlasts that by far, and past it the
 * MMS ends with what it has, so that a client hears of it and no MMS stays open for ever.
 */
export const INCOMING_MMS_PARTS_WAIT_MS = 60 * 60 * 1000;

/** Overdue MMS ended per query of the sweep: a long-unrun sweep catches up in bounded steps. */
const OVERDUE_BATCH = 100;

/** Where a phone fetches a part of an MMS it is to send (device credentials). */
export function deviceMediaPath(mediaId: string): string {
  return `/api/device/v1/media/${mediaId}`;
}

/** Where a client downloads media (an upload, or a part of a received MMS), with sms:read. */
export function mediaDownloadPath(mediaId: string): string {
  return `/api/ext/v1/media/${mediaId}`;
}

/** The MMS fields of a send task (docs/asyncapi.yaml, SendTask). */
export interface MmsTaskFields {
  subject: string | null;
  recipients: string[];
  parts: { id: string; content_type: string; size: number; path: string }[];
}

/** An outgoing MMS checked and ready to be written beside its sms row. */
export interface PreparedMms {
  subject: string | null;
  recipients: string[];
  media: MediaRow[];
}

/** What a phone reports of an MMS it received (broker/payloads.ts checks its shape). */
export interface ReportedMms {
  deviceMmsId: string;
  phone: string;
  recipients: string[];
  subject: string | null;
  message: string | null;
  simSlot: number | null;
  receivedAt: Date;
  parts: { id: string; contentType: string; size: number }[];
}

export class MmsService {
  constructor(
    private readonly db: Database,
    private readonly media: MediaService,
    private readonly events: DomainEvents<MmsEvents>,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  // Out ------------------------------------------------------------------------------------

  /**
   * Checks the parts of an MMS to send: each id names media of this account (404 media_not_found
   * naming the field otherwise; another account's media is not found either), and together
   * they fit MMS_MAX_MESSAGE_BYTES (413 mms_too_large). Reads only.
   */
  async prepare(accountId: string, input: { recipients: string[]; subject: string | undefined; mediaIds: string[] }): Promise<PreparedMms> {
    const ids = input.mediaIds.map((id) => id.toLowerCase());
    const found = new Map((await this.media.findMany(accountId, ids.filter(isUuid))).map((row) => [row.id, row]));
    const missing: ErrorDetail[] = ids.flatMap((id, index) =>
      found.has(id) ? [] : [{ field: `media_ids.${index}`, message: `media_ids.${index} names no media of this account` }],
    );
    if (missing.length > 0) throw new AppError('media_not_found', 'media_ids must name media this account uploaded (POST /api/ext/v1/media)', missing);
    const media = ids.map((id) => found.get(id)!);
    const total = media.reduce((sum, row) => sum + Number(row.size_bytes), 0);
    const limit = this.media.options.maxMessageBytes;
    if (total > limit) throw new AppError('mms_too_large', `the parts come to ${total} bytes; an MMS may carry at most ${limit} (MMS_MAX_MESSAGE_BYTES)`);
    return { subject: input.subject ?? null, recipients: input.recipients, media };
  }

  /** Writes an MMS's subject, recipients and parts beside its sms row, in the transaction that stores it. */
  async write(trx: Executor, smsId: string, prepared: PreparedMms): Promise<void> {
    const parts: OutgoingPartRow[] = prepared.media.map((media, position) => ({
      sms_id: smsId,
      position,
      media_id: media.id,
      content_type: media.content_type,
      size_bytes: Number(media.size_bytes),
    }));
    await repository.insertOutgoing(trx, { sms_id: smsId, subject: prepared.subject, recipients: prepared.recipients }, parts);
  }

  /** What a send task of this MMS carries besides an SMS's fields; undefined when it is no MMS. */
  async taskFields(smsId: string): Promise<MmsTaskFields | undefined> {
    const found = await repository.findOutgoing(this.db, smsId);
    if (!found) return undefined;
    return {
      subject: found.mms.subject,
      recipients: found.mms.recipients,
      parts: found.parts.map((part) => ({ id: part.media_id, content_type: part.content_type, size: Number(part.size_bytes), path: deviceMediaPath(part.media_id) })),
    };
  }

  /** An outgoing MMS's own fields, for its sms row's view; undefined when the SMS is no MMS. */
  outgoing(smsId: string): Promise<{ mms: OutgoingMmsRow; parts: OutgoingPartRow[] } | undefined> {
    return repository.findOutgoing(this.db, smsId);
  }

  // In -------------------------------------------------------------------------------------

  /**
   * Stores an MMS a phone received, once per its own id: a repeat changes nothing. Its text goes
   * the way of a received SMS's ("incoming_mms.stored", in this transaction). One with no part to
   * wait for is over at once: mms.received in this transaction too.
   */
  async storeReport(accountId: string, deviceId: string, report: ReportedMms): Promise<IncomingMmsRow | undefined> {
    // A SMIL layout is left out: it holds no content and is never uploaded. A part of a type MMS
    // media may not be (a PDF, an unknown file) is kept as missing: its upload could never be
    // accepted, and whoever reads the MMS learns that it had one.
    const parts = report.parts.flatMap((part) => {
      if (isLayout(part.contentType)) return [];
      const type = acceptedType(part.contentType);
      return [{ ...part, contentType: type ?? part.contentType.trim().toLowerCase(), missing: type ? null : ('type_refused' as const) }];
    });
    const refused = parts.filter((part) => part.missing !== null).length;
    if (refused > 0) this.logger.warn({ deviceId, refused }, 'incoming MMS parts of types not kept were refused');
    return this.db.transaction(async (trx) => {
      // Shares the device row's lock with a deletion, as the call log does.
      const live = await trx('devices').where({ id: deviceId, account_id: accountId }).whereNull('deleted_at').forShare().first('id');
      if (!live) return undefined;
      const id = randomUUID();
      const now = new Date(this.clock.now());
      const partRows: IncomingPartRow[] = parts.map((part, position) => ({
        mms_id: id,
        part_id: part.id,
        position,
        content_type: part.contentType,
        size_bytes: part.size,
        media_id: null,
        missing_reason: part.missing,
      }));
      const row = await repository.insertIncoming(
        trx,
        {
          id,
          account_id: accountId,
          device_id: deviceId,
          device_mms_id: report.deviceMmsId,
          // E.164 when it parses; a short or service number is kept as reported.
          phone: normalizePhone(report.phone, undefined) ?? report.phone.trim(),
          recipients: report.recipients,
          subject: report.subject,
          message: report.message,
          sim_slot: report.simSlot,
          received_at: report.receivedAt,
          completed_at: partRows.some((part) => part.missing_reason === null) ? null : now,
          // The sweep measures the wait for parts from here by the gateway's clock: the same clock writes it.
          created_at: now,
        },
        partRows,
      );
      if (!row) return undefined;
      await this.events.written(trx, 'incoming_mms.stored', row);
      if (row.completed_at) await this.events.written(trx, 'mms.received', { mms: row, parts: partRows, media: new Map() });
      return row;
    });
  }

  /**
   * Stores the bytes of part `partId` of the MMS the device reported as `deviceMmsId`. A part
   * already uploaded is answered as stored, nothing replaced. The bytes must be the type the
   * report declared, and at most MMS_MAX_MESSAGE_BYTES: a refusal is recorded on the part (a
   * later good upload still replaces it while the MMS waits), and an MMS whose every part is
   * then uploaded or refused ends. Once it ended, a part it ended without is no longer taken.
   */
  async uploadPart(device: DeviceRow, deviceMmsId: string, partId: string, body: Readable, declaredBytes: number | undefined): Promise<{ part: IncomingPartRow; media: MediaRow; created: boolean }> {
    const mms = await repository.findIncomingByDeviceId(this.db, device.id, deviceMmsId);
    if (!mms) throw new AppError('mms_not_found', 'the device has not reported an MMS with this id (publish it on its mms topic first)');
    const part = (await repository.incomingParts(this.db, [mms.id])).find((each) => each.part_id === partId);
    if (!part) throw new AppError('mms_part_not_expected');
    if (part.media_id) return { part, media: await this.mediaOf(mms.account_id, part.media_id), created: false };
    if (mms.completed_at) throw endedWithout(part);

    let media: MediaRow;
    try {
      media = await this.media.upload(mms.account_id, part.content_type, body, declaredBytes, 'incoming', this.media.options.maxMessageBytes);
    } catch (error) {
      const reason = refusalOf(error);
      if (reason) await this.db.transaction((trx) => this.giveUp(trx, mms.id, partId, reason));
      throw error;
    }
    const outcome = await this.db.transaction(async (trx) => {
      const locked = await repository.lockIncoming(trx, mms.id);
      if (!locked) return 'gone' as const;
      // Ended meanwhile (the sweep, or this very part uploaded by a concurrent request that ended it).
      if (locked.completed_at) return 'ended' as const;
      if (!(await repository.attachPart(trx, mms.id, partId, media.id))) return 'lost' as const;
      const { parts } = await this.endIfSettled(trx, locked);
      return parts.find((each) => each.part_id === partId)!;
    });
    if (typeof outcome === 'string') {
      // The MMS went with its device, ended, or a concurrent upload of this part committed first.
      await this.media.discard(media);
      if (outcome === 'gone') throw new AppError('mms_not_found');
      const now = (await repository.incomingParts(this.db, [mms.id])).find((each) => each.part_id === partId)!;
      if (!now.media_id) throw endedWithout(now);
      return { part: now, media: await this.mediaOf(mms.account_id, now.media_id), created: false };
    }
    this.logger.info({ mmsId: mms.id, deviceId: device.id, sizeBytes: Number(media.size_bytes), contentType: media.content_type }, 'incoming MMS part stored');
    return { part: outcome, media, created: true };
  }

  /**
   * Ends the received MMS whose parts have not all come within INCOMING_MMS_PARTS_WAIT_MS of
   * their report: the parts still awaited are missing (not_uploaded), and mms.received says so.
   * Answers how many it ended.
   */
  async endOverdue(): Promise<number> {
    const cutoff = new Date(this.clock.now() - INCOMING_MMS_PARTS_WAIT_MS);
    let ended = 0;
    for (;;) {
      const ids = await repository.openBefore(this.db, cutoff, OVERDUE_BATCH);
      for (const id of ids) {
        if (await this.db.transaction((trx) => this.giveUp(trx, id, null, 'not_uploaded'))) ended++;
      }
      if (ids.length < OVERDUE_BATCH) break;
    }
    if (ended > 0) this.logger.info({ ended, waitedMs: INCOMING_MMS_PARTS_WAIT_MS }, 'incoming MMS ended without the parts never uploaded');
    return ended;
  }

  /**
   * Records that part `partId` (every part still awaited when null) will not come, and ends the
   * MMS if nothing else is awaited. Answers whether it ended it; nothing changes once it ended.
   */
  private async giveUp(trx: Executor, mmsId: string, partId: string | null, reason: MissingReason): Promise<boolean> {
    const locked = await repository.lockIncoming(trx, mmsId);
    if (!locked || locked.completed_at) return false;
    await repository.markPartsMissing(trx, mmsId, partId, reason);
    return (await this.endIfSettled(trx, locked)).ended;
  }

  /**
   * With the MMS locked and not ended: once every part is uploaded or missing, it ends and
   * mms.received is announced in this transaction (one per MMS: it ends once). Answers its parts,
   * and whether it ended.
   */
  private async endIfSettled(trx: Executor, locked: IncomingMmsRow): Promise<{ parts: IncomingPartRow[]; ended: boolean }> {
    const parts = await repository.incomingParts(trx, [locked.id]);
    if (parts.some((part) => part.media_id === null && part.missing_reason === null)) return { parts, ended: false };
    const ended = await repository.markCompleted(trx, locked.id, new Date(this.clock.now()));
    const media = new Map((await repository.mediaByIds(trx, parts.flatMap((part) => (part.media_id ? [part.media_id] : [])))).map((row) => [row.id, row]));
    await this.events.written(trx, 'mms.received', { mms: ended, parts, media });
    const missing = parts.filter((part) => part.media_id === null).length;
    if (missing > 0) this.logger.info({ mmsId: locked.id, deviceId: locked.device_id, missing }, 'incoming MMS ended without some of its parts');
    return { parts, ended: true };
  }

  /** A received MMS of the account with its parts; 404 otherwise. */
  async incoming(accountId: string, id: string): Promise<IncomingMms> {
    const mms = isUuid(id) ? await repository.findIncoming(this.db, accountId, id.toLowerCase()) : undefined;
    if (!mms) throw new AppError('mms_not_found');
    return (await this.withParts([mms]))[0]!;
  }

  /** A page of the account's received MMS, newest first, with their parts. */
  async listIncoming(accountId: string, filter: { deviceId?: string }, limit: number, cursor?: Cursor): Promise<IncomingMms[]> {
    return this.withParts(await repository.listIncoming(this.db, accountId, filter, limit, cursor));
  }

  /** The MMS received from one number exactly as stored, newest first, without their parts (a conversation's thread). */
  listFromNumber(accountId: string, phone: string, limit: number, cursor?: Cursor): Promise<IncomingMmsRow[]> {
    return repository.listIncoming(this.db, accountId, { phone }, limit, cursor);
  }

  /** The account's received MMS with these ids, without their parts (a conversation's newest). */
  findManyIncoming(accountId: string, ids: string[]): Promise<IncomingMmsRow[]> {
    return repository.findIncomingMany(this.db, accountId, ids.filter(isUuid));
  }

  private async withParts(rows: IncomingMmsRow[]): Promise<IncomingMms[]> {
    const parts = await repository.incomingParts(this.db, rows.map((row) => row.id));
    const media = new Map((await repository.mediaByIds(this.db, parts.flatMap((part) => (part.media_id ? [part.media_id] : [])))).map((row) => [row.id, row]));
    return rows.map((mms) => ({ mms, parts: parts.filter((part) => part.mms_id === mms.id), media }));
  }

  private async mediaOf(accountId: string, mediaId: string): Promise<MediaRow> {
    const [media] = await this.media.findMany(accountId, [mediaId]);
    // Removed by retention since: the part stays uploaded, its bytes are gone.
    if (!media) throw new AppError('media_not_found');
    return media;
  }
}

/** Why an upload's refusal means the part will not come; undefined for any other failure (a cut connection, an outage). */
function refusalOf(error: unknown): MissingReason | undefined {
  if (!(error instanceof AppError)) return undefined;
  if (error.code === 'payload_too_large') return 'too_large';
  if (error.code === 'media_type_refused') return 'type_refused';
  return undefined;
}

function endedWithout(part: IncomingPartRow): AppError {
  return new AppError('mms_part_not_expected', `the MMS ended without this part (${part.missing_reason ?? 'not_uploaded'}); it takes no more uploads`);
}
