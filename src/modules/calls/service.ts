// The call log: calls the account's phones report on their `calls` topic, kept while
// their phone exists. A call is stored once per phone call id; deleting a call (or its phone)
// announces "call.deleted", so the recording's audio goes with its row.
import type { Database, Executor } from '../../storage/database.ts';
import type { Cursor } from '../../storage/paging.ts';
import type { DomainEvents } from '../../events/domain-events.ts';
import type { CallsEvents } from './domain-events.ts';
import { AppError } from '../../common/errors.ts';
import { normalizePhone } from '../../common/phone.ts';
import * as calls from './repository.ts';
import { shareLiveDeviceLock } from '../devices/shared-queries.ts';
import type { CallDirection } from './schema.ts';

export interface ReportedCall {
  deviceCallId: string;
  direction: CallDirection;
  phone: string;
  simSlot: number | null;
  startedAt: Date;
  durationSeconds: number;
}

export interface CallWithRecording {
  call: calls.CallRow;
  recording: calls.RecordingRow | undefined;
}

export class CallService {
  constructor(
    private readonly db: Database,
    private readonly events: DomainEvents<CallsEvents>,
    private readonly defaultPhoneRegion?: string,
  ) {}

  /**
   * Stores the call; undefined when the phone had already reported it (a repeat changes nothing)
   * or when the phone was deleted meanwhile.
   */
  async store(accountId: string, deviceId: string, report: ReportedCall): Promise<calls.CallRow | undefined> {
    return this.db.transaction(async (trx) => {
      // Shares the device row's lock with a deletion: either the deletion committed first and
      // the call is not stored, or it waits for this commit and then deletes the call with the rest.
      if (!(await shareLiveDeviceLock(trx, accountId, deviceId))) return undefined;
      const row = await calls.insertCall(trx, {
        account_id: accountId,
        device_id: deviceId,
        device_call_id: report.deviceCallId,
        direction: report.direction,
        // E.164 when it parses; a withheld, short or service number is kept as reported.
        phone: normalizePhone(report.phone, this.defaultPhoneRegion) ?? report.phone.trim(),
        sim_slot: report.simSlot,
        started_at: report.startedAt,
        duration_seconds: report.durationSeconds,
      });
      if (row) await this.events.written(trx, 'call.stored', row);
      return row;
    });
  }

  /** A page of the account's calls with their recordings; `filter.phone` is normalized as reports are. */
  async list(accountId: string, filter: calls.CallFilter, limit: number, cursor?: Cursor): Promise<CallWithRecording[]> {
    if (filter.phone !== undefined) filter = { ...filter, phone: normalizePhone(filter.phone, this.defaultPhoneRegion) ?? filter.phone.trim() };
    const rows = await calls.listCalls(this.db, accountId, filter, limit, cursor);
    const recordings = await calls.findRecordings(this.db, rows.map((row) => row.id));
    return rows.map((call) => ({ call, recording: recordings.get(call.id) }));
  }

  /** The call with its recording; 404 when it is not this account's. */
  async get(accountId: string, id: string): Promise<CallWithRecording> {
    const call = await calls.findCallInAccount(this.db, accountId, id);
    if (!call) throw new AppError('call_not_found');
    return { call, recording: await calls.findRecording(this.db, id) };
  }

  /** Deletes the call and its recording row; the listeners of "call.deleted" then remove what lives outside the database. */
  async delete(accountId: string, id: string): Promise<void> {
    const deleted = await this.db.transaction(async (trx) => {
      const call = await trx<calls.CallRow>('calls').where({ account_id: accountId, id }).forUpdate().first();
      if (!call) return undefined;
      const recording = await calls.findRecording(trx, id);
      await calls.deleteCall(trx, id);
      return { call, recording };
    });
    if (!deleted) throw new AppError('call_not_found');
    await this.announceDeleted(deleted.call, deleted.recording);
  }

  /**
   * The log is kept while its phone exists: a deleted phone's calls, and their recordings, go
   * with it, in the transaction of its deletion (src/use-cases/delete-device.ts). The device row
   * itself stays (SMS history names it), so no foreign key cascades this. Each call is announced
   * as deleted once `trx` commits.
   */
  async deleteDeviceCalls(trx: Executor, deviceId: string): Promise<void> {
    const rows = await calls.listDeviceCalls(trx, deviceId);
    const recordings = await calls.findRecordings(trx, rows.map((row) => row.id));
    await trx('calls').where({ device_id: deviceId }).delete();
    for (const call of rows) await this.events.written(trx, 'call.deleted', { call, recording: recordings.get(call.id) });
  }

  /** Retention with hashed numbers: a batch of the account's calls started before `before` get their number hashed; answers how many. */
  hashPhonesBefore(accountId: string, before: Date, batch: number, hash: (phone: string) => string): Promise<number> {
    return calls.hashPhonesBefore(this.db, accountId, before, batch, hash);
  }

  /** Waits for the listeners (a failing one is logged, never thrown back: the call is gone from the log either way). */
  private announceDeleted(call: calls.CallRow, recording: calls.RecordingRow | undefined): Promise<void> {
    return this.events.emit('call.deleted', { call, recording });
  }
}
