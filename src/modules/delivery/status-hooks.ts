// Status changes as the rest of the gateway hears about them: one seam. Whatever moves an SMS
// (a device report, expiry, cancel, a device that can no longer send) writes the change and then
// runs the hooks, in the same transaction, so that what follows from a change (the webhook
// outbox rows, the device's failure count) commits or fails with it. After commit, the hooks
// hear it again (wake the webhook sender, give the device its next task).
import type { Executor } from '../../storage/database.ts';
import { afterCommit } from '../../storage/database.ts';
import type { SmsStatus } from '../messages/status.ts';

/** What an event needs to know about its SMS. */
export interface SmsSnapshot {
  id: string;
  object_id: string;
  account_id: string;
  phone: string;
  /** null for a no_store SMS: its text must not leave the gateway again. */
  message: string | null;
  callback_id: string | null;
  device_id: string | null;
  device_object_id: string | null;
}

export interface SmsStatusChange {
  sms: SmsSnapshot;
  from: SmsStatus;
  /** Statuses passed through, in order; the last is the new status. */
  path: SmsStatus[];
  at: Date;
  reason: string | null;
  /** device: a phone's report; system: the gateway decided (expiry, failover); api: a client (cancel). */
  source: 'device' | 'system' | 'api';
  /** A no_store SMS: there is no row, and it runs outside any transaction. */
  transient: boolean;
}

export function newStatus(change: SmsStatusChange): SmsStatus {
  return change.path[change.path.length - 1]!;
}

export interface StatusHook {
  /** Runs in the transaction that wrote the changes (on the database itself for no_store SMS). */
  inTransaction?(trx: Executor, changes: SmsStatusChange[]): Promise<void>;
  /** Runs once the changes are committed; must not throw. */
  committed?(changes: SmsStatusChange[]): void;
}

export class StatusHooks {
  private readonly hooks: StatusHook[] = [];

  constructor(private readonly onHookError: (error: unknown) => void) {}

  add(hook: StatusHook): void {
    this.hooks.push(hook);
  }

  /** Call inside the transaction of the changes; the committed hooks run after its commit. */
  async written(trx: Executor, changes: SmsStatusChange[]): Promise<void> {
    if (changes.length === 0) return;
    for (const hook of this.hooks) await hook.inTransaction?.(trx, changes);
    afterCommit(trx, () => this.committed(changes));
  }

  /** For writers that call committed() themselves (the status ingestor answers devices first). */
  async writtenWithoutCommitHook(trx: Executor, changes: SmsStatusChange[]): Promise<void> {
    for (const hook of this.hooks) await hook.inTransaction?.(trx, changes);
  }

  committed(changes: SmsStatusChange[]): void {
    if (changes.length === 0) return;
    for (const hook of this.hooks) {
      try {
        hook.committed?.(changes);
      } catch (error) {
        this.onHookError(error);
      }
    }
  }
}
