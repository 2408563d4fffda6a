// Media: the bytes of MMS parts, an account's uploads and what phones received. They go to the
// recordings' store (src/modules/calls/recordings/store.ts: a directory, or the S3 bucket)
// streamed, counted and hashed as they pass; the row (media) is written once they are all stored,
// so a row always has its bytes. Nothing is ever held whole in memory: an upload passes through
// a few chunks at a time, a download is a stream from the store.
import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { Database } from '../../storage/database.ts';
import type { Clock } from '../../common/clock.ts';
import type { Logger } from '../../common/logger.ts';
import { AppError } from '../../common/errors.ts';
import { isUuid } from '../../common/object-id.ts';
import { expireWithFiles, removeQueuedFiles } from '../../storage/file-removals.ts';
import { peek } from '../calls/recordings/peek.ts';
import { openRange, type RangedFile } from '../calls/recordings/range.ts';
import { RecordingTooLarge, recordingKey, type RecordingStore } from '../calls/recordings/store.ts';
import { acceptedType, ACCEPTED_MEDIA_TYPES, bytesAre, SNIFF_BYTES } from './media-type.ts';
import * as repository from './repository.ts';
import type { MediaRow } from './types.ts';

export interface MediaOptions {
  /** Largest upload through POST /media (one part of an outgoing MMS). */
  maxPartBytes: number;
  /** Parts of one outgoing MMS together; also the largest part a phone uploads of one it received. */
  maxMessageBytes: number;
  retentionDays: number | undefined;
}

export interface MediaDownload extends RangedFile {
  media: MediaRow;
}

export class MediaService {
  constructor(
    private readonly db: Database,
    private readonly store: RecordingStore,
    readonly options: MediaOptions,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  /**
   * Stores `body` as media of the account. Refusals come before a byte is read when they can: a
   * declared type MMS does not carry (415), a declared length over `maxBytes` (413); then the
   * first bytes must be the declared type (415), and the rest is counted as it streams (413 past
   * the limit, nothing kept).
   */
  async upload(
    accountId: string,
    declaredType: string | undefined,
    body: Readable,
    declaredBytes: number | undefined,
    origin: MediaRow['origin'],
    maxBytes = this.options.maxPartBytes,
  ): Promise<MediaRow> {
    const type = acceptedType(declaredType);
    if (!type) {
      throw new AppError('media_type_refused', `Content-Type must be one of ${ACCEPTED_MEDIA_TYPES.join(', ')}`);
    }
    if (declaredBytes !== undefined && declaredBytes > maxBytes) throw tooLarge(maxBytes);
    const { head, body: whole } = await peek(body, SNIFF_BYTES);
    if (!(await bytesAre(type, head, head.length < SNIFF_BYTES))) {
      whole.destroy();
      throw new AppError('media_type_refused', `the bytes are not ${type}, the Content-Type they were sent with`);
    }
    const key = recordingKey(randomUUID());
    let stored;
    try {
      stored = await this.store.put(key, whole, { maxBytes });
    } catch (error) {
      if (error instanceof RecordingTooLarge) throw tooLarge(maxBytes);
      throw error;
    }
    if (stored.size === 0) {
      await this.store.remove(key);
      throw new AppError('media_type_refused', 'the body is empty');
    }
    try {
      return await repository.insertMedia(this.db, {
        id: randomUUID(),
        account_id: accountId,
        origin,
        storage_key: key,
        content_type: type,
        size_bytes: stored.size,
        sha256: stored.sha256,
      });
    } catch (error) {
      await this.store.remove(key).catch(() => undefined);
      throw error;
    }
  }

  /** The account's media (or a byte range of it); another account's is not found. */
  async open(accountId: string, mediaId: string, rangeHeader: string | undefined): Promise<MediaDownload> {
    const media = isUuid(mediaId) ? await repository.findMedia(this.db, accountId, mediaId.toLowerCase()) : undefined;
    if (!media) throw new AppError('media_not_found');
    const file = await openRange(this.store, media.storage_key, Number(media.size_bytes), rangeHeader);
    if (!file) {
      this.logger.error({ mediaId }, 'media file missing from the store');
      throw new AppError('media_not_found');
    }
    return { media, ...file };
  }

  /** The account's media of these ids, in no order; ids that are not the account's are left out. */
  findMany(accountId: string, ids: string[]): Promise<MediaRow[]> {
    return repository.findMediaMany(this.db, accountId, ids);
  }

  /** Removes media stored but not kept (a part uploaded twice at once: the loser's copy). */
  async discard(media: MediaRow): Promise<void> {
    await repository.deleteMedia(this.db, media.id);
    await this.store.remove(media.storage_key);
  }

  /** Removes media older than MEDIA_RETENTION_DAYS, rows then files; answers how many. */
  async expire(): Promise<number> {
    if (this.options.retentionDays === undefined) return 0;
    const cutoff = new Date(this.clock.now() - this.options.retentionDays * 24 * 3600 * 1000);
    const removed = await expireWithFiles((limit) => repository.deleteMediaOlderThan(this.db, cutoff, limit), () => this.removeQueuedFiles());
    if (removed > 0) this.logger.info({ removed, retentionDays: this.options.retentionDays }, 'expired media removed');
    return removed;
  }

  /**
   * Removes the files of media rows deleted however they went (expired, an account's retention,
   * a whole account deleted), queued with their deletion; answers how many. A file that cannot be
   * removed now stays queued for the next run.
   */
  removeQueuedFiles(): Promise<number> {
    return removeQueuedFiles(this.db, 'media', (key) => this.store.remove(key), this.logger);
  }
}

function tooLarge(maxBytes: number): AppError {
  return new AppError('payload_too_large', `media must not exceed ${maxBytes} bytes`);
}
