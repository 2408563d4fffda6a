// The health judge's rule, on the probes of an account's last canary rounds: which side of a
// failed canary was at fault. Pure: the service reads the probes and writes what this decides.
//
// A canary that did not arrive says only that the pair failed: the sender, the receiver, or the
// network between them. It is pinned on a SIM only when others vouch for the partners:
// - a SIM whose canaries failed to reach two different receivers, each of which did receive
//   another SIM's canary, is degraded with fault 'send';
// - a SIM that failed to receive from two different senders, each of which did reach another
//   SIM, is degraded with fault 'receive'.
// Only failures since the SIM last passed in that role, and since it was last cleared (recovered or
// marked healthy by its owner), count: once a canary it sent (or received) arrives, older failures
// are forgiven. With fewer partners than that the verdict is "cannot
// tell", which the health answer says and which degrades nothing (an account of two SIMs can
// never pin a failure on one of them).
//
// A degraded SIM recovers when a canary it sent (fault send) or received (fault receive) passes
// after it was degraded, and that canary is newer than its last failed one.
import { clearedAt, type DegradedRow, type ProbeRow } from './repository.ts';

/** Two different partners, each vouched for by a third SIM: the evidence that pins a failure. */
export const PARTNERS_TO_PIN = 2;

export interface SimRef {
  deviceId: string;
  simSlot: number;
}

export const simKey = (deviceId: string, simSlot: number) => `${deviceId}:${simSlot}`;
const senderKey = (p: ProbeRow) => simKey(p.sender_device_id, p.sender_sim);
const receiverKey = (p: ProbeRow) => simKey(p.receiver_device_id, p.receiver_sim);

export type Assessment =
  | { verdict: 'send' | 'receive'; reason: string }
  | { verdict: 'undecided'; role: 'sender' | 'receiver'; reason: string }
  | { verdict: 'fine' };

/**
 * The probes of the account's last rounds, read once into what the rule asks of them: each SIM's
 * probes in each role, and who each SIM passed with. Judging every SIM is then linear in the
 * probes, not probes times SIMs (a round of 1,000 SIMs is 1,000 probes; six rounds are weighed).
 */
export class ProbeIndex {
  readonly sims = new Map<string, SimRef>();
  private readonly asSender = new Map<string, ProbeRow[]>();
  private readonly asReceiver = new Map<string, ProbeRow[]>();
  /** For each receiver, the senders whose canaries reached it; for each sender, the receivers it reached. */
  private readonly reachedBy = new Map<string, Set<string>>();
  private readonly reached = new Map<string, Set<string>>();

  constructor(readonly probes: readonly ProbeRow[]) {
    for (const p of probes) {
      const sender = senderKey(p);
      const receiver = receiverKey(p);
      this.sims.set(sender, { deviceId: p.sender_device_id, simSlot: p.sender_sim });
      this.sims.set(receiver, { deviceId: p.receiver_device_id, simSlot: p.receiver_sim });
      push(this.asSender, sender, p);
      push(this.asReceiver, receiver, p);
      if (p.result !== 'passed') continue;
      add(this.reachedBy, receiver, sender);
      add(this.reached, sender, receiver);
    }
  }

  /** The SIM's probes in one role. */
  of(sim: string, role: 'sender' | 'receiver'): readonly ProbeRow[] {
    return (role === 'sender' ? this.asSender : this.asReceiver).get(sim) ?? [];
  }

  /**
   * Whether a SIM other than `sim` worked with `partner` in the role `sim` failed in: another
   * sender reached the receiver `partner`, or the sender `partner` reached another receiver.
   */
  vouchedFor(partner: string, sim: string, role: 'sender' | 'receiver'): boolean {
    const worked = (role === 'sender' ? this.reachedBy : this.reached).get(partner);
    return worked !== undefined && (worked.size > 1 || (worked.size === 1 && !worked.has(sim)));
  }
}

function push(map: Map<string, ProbeRow[]>, key: string, probe: ProbeRow): void {
  const list = map.get(key);
  if (list) list.push(probe);
  else map.set(key, [probe]);
}

function add(map: Map<string, Set<string>>, key: string, value: string): void {
  const set = map.get(key);
  if (set) set.add(value);
  else map.set(key, new Set([value]));
}

/** What the probes say of one SIM (not degraded now): at fault on one side, cannot tell, or nothing against it. */
export function assess(index: ProbeIndex, sim: string, clearedAtMs = -Infinity): Assessment {
  const asSender = blame(index, sim, 'sender', clearedAtMs);
  if (asSender.pinned.length >= PARTNERS_TO_PIN) {
    return { verdict: 'send', reason: `its canary SMS did not reach ${asSender.pinned.length} SIMs that received other SIMs' canary SMS (rounds ${rounds(asSender.rounds)})` };
  }
  const asReceiver = blame(index, sim, 'receiver', clearedAtMs);
  if (asReceiver.pinned.length >= PARTNERS_TO_PIN) {
    return { verdict: 'receive', reason: `it did not receive the canary SMS of ${asReceiver.pinned.length} SIMs whose canary SMS reached other SIMs (rounds ${rounds(asReceiver.rounds)})` };
  }
  if (asSender.failed > 0) {
    return { verdict: 'undecided', role: 'sender', reason: `${asSender.failed} of its canary SMS did not arrive, but too few other SIMs reached the same receivers to tell whether it is at fault` };
  }
  if (asReceiver.failed > 0) {
    return { verdict: 'undecided', role: 'receiver', reason: `${asReceiver.failed} canary SMS sent to it did not arrive, but too few of their senders reached other SIMs to tell whether it is at fault` };
  }
  return { verdict: 'fine' };
}

/**
 * The partners a SIM failed with, in one role, since it last passed in that role, that a third
 * SIM vouches for.
 */
function blame(index: ProbeIndex, sim: string, role: 'sender' | 'receiver', clearedAtMs: number) {
  const mine = index.of(sim, role);
  const partnerOf = role === 'sender' ? receiverKey : senderKey;
  let lastPass = clearedAtMs;
  for (const p of mine) if (p.result === 'passed') lastPass = Math.max(lastPass, p.created_at.getTime());
  const pinned = new Set<string>();
  const seenRounds = new Set<number>();
  let failed = 0;
  for (const failure of mine) {
    if (failure.result !== 'failed' || failure.created_at.getTime() <= lastPass) continue;
    failed += 1;
    const partner = partnerOf(failure);
    if (!index.vouchedFor(partner, sim, role)) continue;
    pinned.add(partner);
    seenRounds.add(failure.round_number);
  }
  return { pinned: [...pinned], failed, rounds: [...seenRounds].sort((a, b) => a - b) };
}

const rounds = (numbers: number[]) => numbers.join(', ');

/** A change the judge decided. */
export interface Decision extends SimRef {
  state: 'degraded' | 'healthy';
  fault: 'send' | 'receive' | null;
  reason: string;
}

/** Every SIM the probes name, judged: those to degrade, and degraded ones to recover. */
export function decide(probes: readonly ProbeRow[], degraded: readonly DegradedRow[]): Decision[] {
  const index = new ProbeIndex(probes);
  const states = new Map(degraded.filter((row) => row.degraded_since !== null).map((row) => [simKey(row.device_id, row.sim_slot), row]));
  const cleared = new Map(degraded.map((row) => [simKey(row.device_id, row.sim_slot), clearedAt(row)]));
  const decisions: Decision[] = [];
  for (const [key, ref] of [...index.sims].sort(([a], [b]) => a.localeCompare(b))) {
    const state = states.get(key);
    if (state) {
      const recovered = recovery(index, key, state);
      if (recovered) decisions.push({ ...ref, state: 'healthy', fault: state.degraded_fault, reason: recovered });
      continue;
    }
    const assessment = assess(index, key, cleared.get(key));
    if (assessment.verdict === 'send' || assessment.verdict === 'receive') decisions.push({ ...ref, state: 'degraded', fault: assessment.verdict, reason: assessment.reason });
  }
  return decisions;
}

/**
 * Why a degraded SIM recovered, or null while it has not: a canary of its own side passed once it
 * was degraded (or at that very moment), and was sent after the last one that failed, so that an
 * old canary arriving late does not undo what newer failures decided.
 */
function recovery(index: ProbeIndex, sim: string, state: DegradedRow): string | null {
  const since = state.degraded_since!.getTime();
  const mine = index.of(sim, state.degraded_fault === 'receive' ? 'receiver' : 'sender');
  let lastFailure = -Infinity;
  for (const p of mine) if (p.result === 'failed') lastFailure = Math.max(lastFailure, p.created_at.getTime());
  const passed = mine.find((p) => p.result === 'passed' && (p.ended_at ?? p.created_at).getTime() >= since && p.created_at.getTime() > lastFailure);
  if (!passed) return null;
  return state.degraded_fault === 'receive' ? `a canary SMS sent to it arrived again (round ${passed.round_number})` : `a canary SMS it sent arrived again (round ${passed.round_number})`;
}
