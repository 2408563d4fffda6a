// Canary probes written as ended rounds leave them, for the health judge's tests: the rows the
// canary service writes, without the phones and rounds that would take minutes to end.
import { randomUUID } from 'node:crypto';
import type { Clock } from '../../src/common/clock.ts';
import type { GatewayFixture } from '../support/use-gateway.ts';
import { insertCanaryProbes } from '../support/test-data.ts';

export interface Probe {
  round: number;
  from: [string, number];
  to: [string, number];
  result: 'passed' | 'failed' | 'pending';
  /** Minutes before now the probe was created; by default 10 minutes a round, round 10 now. */
  ago?: number;
}

/** Writes the probes of the fixture's tenant (a pass took 4 s; a failure ended at its 5-minute deadline). */
export async function writeProbes(fx: GatewayFixture, clock: Clock, ...list: Probe[]): Promise<void> {
  const now = clock.now();
  await insertCanaryProbes(
    fx,
    list.map((p) => {
      const created = new Date(now - (p.ago ?? (10 - p.round) * 10) * 60_000);
      return {
        id: randomUUID(),
        account_id: fx.tenant.accountId,
        round_id: randomUUID(),
        sms_id: randomUUID(),
        round_number: p.round,
        sender_device_id: p.from[0],
        sender_sim: p.from[1],
        receiver_device_id: p.to[0],
        receiver_sim: p.to[1],
        code: randomUUID().slice(0, 8),
        created_at: created,
        deadline_at: new Date(created.getTime() + 300_000),
        result: p.result,
        failure: p.result === 'failed' ? 'timeout' : null,
        ended_at: p.result === 'pending' ? null : new Date(created.getTime() + (p.result === 'passed' ? 4_000 : 300_000)),
        round_trip_ms: p.result === 'passed' ? 4_000 : null,
      };
    }),
  );
}

/** The judge, in a transaction of its own as the canary service gives it one. */
export function judge(fx: GatewayFixture): Promise<void> {
  return fx.gateway.services.db.transaction((trx) => fx.gateway.services.fleetHealth.judge(trx, fx.tenant.accountId));
}

/** A's canaries fail to reach B then C, while B and C reach each other and A. */
export function aCannotSend(a: string, b: string, c: string): Probe[] {
  return [
    { round: 1, from: [a, 0], to: [b, 0], result: 'failed' },
    { round: 1, from: [b, 0], to: [c, 0], result: 'passed' },
    { round: 1, from: [c, 0], to: [a, 0], result: 'passed' },
    { round: 2, from: [a, 0], to: [c, 0], result: 'failed' },
    { round: 2, from: [b, 0], to: [a, 0], result: 'passed' },
    { round: 2, from: [c, 0], to: [b, 0], result: 'passed' },
  ];
}
