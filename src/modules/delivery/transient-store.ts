// no_store SMS live only here: from the moment they are handed to a device until they reach a
// final status (a no_store SMS leaves no record). Nothing is written to the database, ever.
import type { SmsRecord } from '../messages/types.ts';
import { isFinal, transitionPath } from '../messages/transitions.ts';
import type { SmsStatus } from '../messages/status.ts';

/** Forgets a transient SMS that has heard nothing for this long (its device went away). */
const FORGET_AFTER_MS = 24 * 60 * 60 * 1000;

export class TransientStore {
  private readonly entries = new Map<string, { sms: SmsRecord; touched: number }>();

  add(sms: SmsRecord): void {
    this.entries.set(sms.id, { sms, touched: Date.now() });
  }

  has(smsId: string): boolean {
    return this.entries.has(smsId);
  }

  /** Applies a device report; returns the statuses passed through, or undefined if not ours. */
  apply(smsId: string, deviceId: string, status: SmsStatus): { sms: SmsRecord; from: SmsStatus; path: SmsStatus[] } | undefined {
    const entry = this.entries.get(smsId);
    if (!entry || entry.sms.device_id !== deviceId) return undefined;
    const from = entry.sms.status;
    const path = transitionPath(from, status);
    if (path.length > 0) {
      entry.sms = { ...entry.sms, status, updated_at: new Date() };
      entry.touched = Date.now();
    }
    if (isFinal(entry.sms.status)) this.entries.delete(smsId);
    return { sms: entry.sms, from, path };
  }

  forgetStale(now = Date.now()): void {
    for (const [id, entry] of this.entries) if (now - entry.touched > FORGET_AFTER_MS) this.entries.delete(id);
  }

  get size(): number {
    return this.entries.size;
  }
}
