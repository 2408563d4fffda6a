// What the canary rounds ask once probes ended: the fleet health module's judge reads the
// account's probes and decides which SIMs are degraded or recovered, in the transaction that ended
// them (so a probe's end and what it decided commit together).
import type { Executor } from '../../../storage/database.ts';

export interface HealthJudge {
  judge(trx: Executor, accountId: string): Promise<void>;
}
