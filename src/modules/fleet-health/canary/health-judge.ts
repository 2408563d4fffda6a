// What the canary rounds ask once probes ended: the fleet health module's judge reads the
// account's probes and decides which SIMs are degraded or recovered, in the transaction that ended
// them (so a probe's end and what it decided commit together).
import type { Executor } from '../../../storage/database.ts';

export interface HealthJudge {
  judge(trx: Executor, accountId: string): Promise<void>;
  /** Whether one of these SIMs is degraded now: a canary it passed may recover it at once. */
  anyDegraded(trx: Executor, sims: readonly { deviceId: string; simSlot: number }[]): Promise<boolean>;
}
