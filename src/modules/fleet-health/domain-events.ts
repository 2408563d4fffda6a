// What the fleet health module announces to the rest of the gateway (src/events/domain-events.ts).

/** A SIM of a device became degraded or recovered. */
export interface SimHealthChange {
  accountId: string;
  deviceId: string;
  simSlot: number;
  state: 'degraded' | 'healthy';
  /** Which side failed, for a degraded SIM: 'send' keeps new work away from it, 'receive' does not. */
  fault: 'send' | 'receive' | null;
  /** Why, in words an owner reads (the canary results that decided it, or "marked healthy by the owner"). */
  reason: string;
}

export interface FleetHealthEvents {
  /**
   * SIMs became degraded or recovered; written in the transaction that decided it. Delivery hears
   * it to move the pool SMS a degraded SIM's device holds and has not sent, and to claim again
   * for a device that recovered; webhooks announce it as device.degraded / device.recovered.
   */
  'fleet.health_changed': SimHealthChange[];
}
