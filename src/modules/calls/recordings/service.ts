// Call recordings: a phone uploads the audio of a call it reported, the account
// downloads it. The bytes go to the RecordingStore under a fresh key, streamed and hashed; the
// row (call_recordings) is written only once they are all stored, so a row always has its file.
// One recording per call: the first upload to commit wins, a repeat answers the stored one.
import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { Database } from '../../../storage/database.ts';
import type { DomainEvents } from '../../../events/domain-events.ts';
import type { CallsEvents } from '../domain-events.ts';
import type { Clock } from '../../../common/clock.ts';
import type { Logger } from '../../../common/logger.ts';
import { AppError } from '../../../common/errors.ts';
import { expireWithFiles, removeQueuedFiles } from '../../../storage/file-removals.ts';
import type { DeviceRow } from '../../devices/types.ts';
import * as calls from '../repository.ts';
import { detectAudioType, SNIFF_BYTES, wavDurationSeconds } from './audio-type.ts';
import { peek } from './peek.ts';
import { deleteRecordingsOlderThan, lockCall } from './repository.ts';
import { RecordingTooLarge, recordingKey, type RecordingStore } from './store.ts';
import { openRange, type RangedFile } from './range.ts';

export interface UploadResult {
  call: calls.CallRow;
  recording: calls.RecordingRow;
  /** False when the call already had a recording: nothing was stored, the stored one is answered. */
  created: boolean;
}

export interface Download extends RangedFile {
  recording: calls.RecordingRow;
}

export class RecordingService {
  constructor(
    private readonly db: Database,
    private readonly store: RecordingStore,
    private readonly events: DomainEvents<CallsEvents>,
    private readonly options: { maxBytes: number; retentionDays: number | undefined },
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  /**
   * Stores the audio of the device's call `deviceCallId`. Refusals come before a byte is read:
   * record_calls off (403), an unknown call (404), a declared length over the limit (413); then
   * the first bytes must be audio (415), and the rest is counted as it streams (413 past the limit).
   */
  async upload(device: DeviceRow, deviceCallId: string, body: Readable, declaredBytes: number | undefined): Promise<UploadResult> {
    if (!device.record_calls) throw new AppError('recording_disabled');
    const call = await calls.findCallByDeviceCallId(this.db, device.id, deviceCallId);
    if (!call) throw new AppError('call_not_found', 'the device has not reported a call with this id (publish it on its calls topic first)');
    const existing = await calls.findRecording(this.db, call.id);
    if (existing) return { call, recording: existing, created: false };
    if (declaredBytes !== undefined && declaredBytes > this.options.maxBytes) throw this.tooLarge();

    const { head, body: whole } = await peek(body, SNIFF_BYTES);
    const contentType = await detectAudioType(head);
    if (!contentType) {
      whole.destroy();
      throw new AppError('not_audio');
    }
    const key = recordingKey(randomUUID());
    let stored;
    try {
      stored = await this.store.put(key, whole, { maxBytes: this.options.maxBytes });
    } catch (error) {
      if (error instanceof RecordingTooLarge) throw this.tooLarge();
      throw error;
    }

    const outcome = await this.db.transaction(async (trx) => {
      if (!(await lockCall(trx, call.id))) return 'call_gone' as const;
      const row = await calls.insertRecording(trx, {
        call_id: call.id,
        storage_key: key,
        size_bytes: stored.size,
        content_type: contentType,
        duration_seconds: contentType === 'audio/wav' ? (wavDurationSeconds(head) ?? null) : null,
        sha256: stored.sha256,
      });
      if (row) await this.events.written(trx, 'recording.stored', { call, recording: row });
      return row;
    });
    if (outcome === 'call_gone' || !outcome) {
      // The call was deleted, or a concurrent upload of it committed first: this copy is nobody's.
      await this.store.remove(key);
      if (outcome === 'call_gone') throw new AppError('call_not_found');
      const winner = await calls.findRecording(this.db, call.id);
      if (!winner) throw new AppError('call_not_found');
      return { call, recording: winner, created: false };
    }
    this.logger.info({ callId: call.id, deviceId: device.id, sizeBytes: stored.size, contentType }, 'call recording stored');
    return { call, recording: outcome, created: true };
  }

  /** The account's recording of call `callId`, or the part `rangeHeader` asks for. */
  async download(accountId: string, callId: string, rangeHeader: string | undefined): Promise<Download> {
    const call = await calls.findCallInAccount(this.db, accountId, callId);
    if (!call) throw new AppError('call_not_found');
    const recording = await calls.findRecording(this.db, callId);
    if (!recording) throw new AppError('recording_not_found');
    const file = await openRange(this.store, recording.storage_key, Number(recording.size_bytes), rangeHeader);
    if (!file) {
      // The row says there is a file and there is none: an operator's matter, not the client's.
      this.logger.error({ callId }, 'call recording file missing from the store');
      throw new AppError('recording_not_found');
    }
    return { recording, ...file };
  }

  /** A deleted call's recording file (heard as "call.deleted"). */
  async removeFile(recording: calls.RecordingRow | undefined): Promise<void> {
    if (recording) await this.store.remove(recording.storage_key);
  }

  /**
   * Removes the recordings older than RECORDINGS_RETENTION_DAYS, rows then files (the calls stay
   * in the log, with recording null); answers how many. Does nothing when recordings are kept.
   */
  async expire(): Promise<number> {
    if (this.options.retentionDays === undefined) return 0;
    const cutoff = new Date(this.clock.now() - this.options.retentionDays * 24 * 3600 * 1000);
    const removed = await expireWithFiles((limit) => deleteRecordingsOlderThan(this.db, cutoff, limit), () => this.removeQueuedFiles());
    if (removed > 0) this.logger.info({ removed, retentionDays: this.options.retentionDays }, 'expired call recordings removed');
    return removed;
  }

  /**
   * Removes the files of recording rows deleted however they went (with their call, their phone
   * or their account, or expired), queued with their deletion; answers how many. A file that
   * cannot be removed now stays queued for the next run.
   */
  removeQueuedFiles(): Promise<number> {
    return removeQueuedFiles(this.db, 'recordings', (key) => this.store.remove(key), this.logger);
  }

  private tooLarge(): AppError {
    return new AppError('payload_too_large', `a recording must not exceed ${this.options.maxBytes} bytes (RECORDING_MAX_BYTES)`);
  }
}
