// The health of an account's devices and SIMs: the judge that degrades and recovers SIMs after
// canary probes end, a device's health as the API shows it, and the owner's word that a SIM is
// healthy again. Every change is written to sim_health and announced as fleet.health_changed in
// the transaction that decided it.
import type { Clock } from '../../../common/clock.ts';
import type { DomainEvents } from '../../../events/domain-events.ts';
import { inTransaction, type Database, type Executor } from '../../../storage/database.ts';
import type { DeviceService } from '../../devices/service.ts';
import type { FleetHealthEvents, SimHealthChange } from '../domain-events.ts';
import * as repository from './repository.ts';
import { CANARY_SHOWN, presentHealth, WINDOW_HOURS, type DeviceHealthView } from './presenter.ts';
import { assess, decide, ProbeIndex, simKey, type Assessment } from './verdict.ts';

/** The judge weighs the probes of the account's last rounds within the window, no older. */
export const ROUNDS_JUDGED = 6;
const WINDOW_MS = WINDOW_HOURS * 3_600_000;

export const MARKED_HEALTHY = 'marked healthy by the owner';

export class FleetHealthService {
  constructor(
    private readonly db: Database,
    private readonly events: DomainEvents<FleetHealthEvents>,
    private readonly clock: Clock,
    private readonly devices: Pick<DeviceService, 'get'>,
  ) {}

  /**
   * Judges the account's SIMs on its recent ended probes, in the transaction that ended some:
   * three statements (the probes, the SIMs' states, and one write per change) and the
   * announcement. A SIM already changed by a concurrent judge is not announced twice.
   */
  async judge(trx: Executor, accountId: string): Promise<void> {
    const now = this.clock.now();
    const probes = await repository.endedProbes(trx, accountId, new Date(now - WINDOW_MS), ROUNDS_JUDGED);
    if (probes.length === 0) return;
    const devices = new Set(probes.flatMap((p) => [p.sender_device_id, p.receiver_device_id]));
    const states = await repository.degradedStates(trx, [...devices]);
    const changes: SimHealthChange[] = [];
    for (const decision of decide(probes, states)) {
      const changed =
        decision.state === 'degraded'
          ? await repository.markDegraded(trx, { deviceId: decision.deviceId, simSlot: decision.simSlot, fault: decision.fault!, reason: decision.reason, at: new Date(now) })
          : (await repository.clearDegraded(trx, decision.deviceId, new Date(now), decision.reason, decision.simSlot)).length > 0;
      if (changed) changes.push({ accountId, deviceId: decision.deviceId, simSlot: decision.simSlot, state: decision.state, fault: decision.fault, reason: decision.reason });
    }
    await this.events.written(trx, 'fleet.health_changed', changes);
  }

  /** Whether one of these SIMs is degraded now (one read of their sim_health rows). */
  async anyDegraded(trx: Executor, sims: readonly { deviceId: string; simSlot: number }[]): Promise<boolean> {
    const states = await repository.degradedStates(trx, [...new Set(sims.map((sim) => sim.deviceId))]);
    return states.some((row) => row.degraded_since !== null && sims.some((sim) => sim.deviceId === row.device_id && sim.simSlot === row.sim_slot));
  }

  /** The device's health (404 device_not_found for another account's device or none). */
  async healthOf(accountId: string, deviceId: string): Promise<DeviceHealthView> {
    const device = await this.devices.get(accountId, deviceId);
    const since = new Date(this.clock.now() - WINDOW_MS);
    const [degraded, figures, received, probes, accountProbes] = await Promise.all([
      repository.degradedStates(this.db, [device.id]),
      repository.sendFigures(this.db, accountId, device.id, since),
      repository.lastReceived(this.db, accountId, device.id, since),
      repository.probesOfDevice(this.db, accountId, device.id, since, CANARY_SHOWN),
      repository.endedProbes(this.db, accountId, since, ROUNDS_JUDGED),
    ]);
    // What the account's last rounds say of each SIM of this device that took part in them.
    const assessments = new Map<number, Assessment>();
    const index = new ProbeIndex(accountProbes);
    for (const p of accountProbes) {
      for (const [deviceOf, slot] of [[p.sender_device_id, p.sender_sim], [p.receiver_device_id, p.receiver_sim]] as const) {
        if (deviceOf !== device.id || assessments.has(slot)) continue;
        const state = degraded.find((row) => row.sim_slot === slot);
        assessments.set(slot, assess(index, simKey(device.id, slot), state ? repository.clearedAt(state) : undefined));
      }
    }
    return presentHealth({ device, degraded, figures, received, probes, assessments });
  }

  /** Clears the degraded state of the device's SIMs (one, or all), announcing each SIM that was degraded; answers the health after. */
  async markHealthy(accountId: string, deviceId: string, simSlot?: number): Promise<DeviceHealthView> {
    const device = await this.devices.get(accountId, deviceId);
    await inTransaction(this.db, async (trx) => {
      const cleared = await repository.clearDegraded(trx, device.id, new Date(this.clock.now()), MARKED_HEALTHY, simSlot);
      await this.events.written(
        trx,
        'fleet.health_changed',
        cleared.map((sim) => ({ accountId, deviceId: device.id, simSlot: sim.sim_slot, state: 'healthy' as const, fault: sim.fault, reason: MARKED_HEALTHY })),
      );
    });
    return this.healthOf(accountId, device.id);
  }
}
