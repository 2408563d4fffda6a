// Makes the gateway out of its features: each service made once, when first needed (so features
// never say in which order they are made), listeners registered in the order features are
// declared, running parts started in that order and stopped by phase.
import type { GatewayEvents } from '../event-catalog.ts';
import { STOP_PHASES, type SomeFeature, type FeatureContext, type Need, type Running, type ServiceName, type Services } from './feature.ts';

/** Made for the whole gateway, or only what a one-shot command asks for. */
export type CompositionMode = 'gateway' | 'command';

export class Composition {
  private readonly providers = new Map<string, SomeFeature>();
  private readonly services = new Map<string, unknown>();
  /** The features made so far (asked before registering listeners, which go in the declared order). */
  private readonly made = new Set<SomeFeature>();
  private readonly making: SomeFeature[] = [];
  private readonly features: readonly SomeFeature[];

  constructor(
    features: readonly SomeFeature[],
    private readonly context: FeatureContext,
    private readonly mode: CompositionMode,
  ) {
    this.features = features.filter((feature) => feature.enabled?.(context.config) ?? true);
    for (const feature of this.features) {
      for (const name of feature.provides) {
        const other = this.providers.get(name);
        if (other) throw new Error(`"${name}" is provided by two features: ${other.name} and ${feature.name}`);
        this.providers.set(name, feature);
      }
    }
  }

  readonly need: Need = <K extends ServiceName>(name: K): Services[K] => {
    if (!this.services.has(name)) {
      const feature = this.providers.get(name);
      if (!feature) throw new Error(`no feature provides "${name}" here (a feature that is off provides nothing)`);
      this.make(feature);
    }
    return this.services.get(name) as Services[K];
  };

  /** Makes every feature, then registers their listeners: the gateway's way. */
  makeAll(): Services {
    for (const feature of this.features) if (!this.made.has(feature)) this.make(feature);
    this.listen();
    return this.all();
  }

  /**
   * Makes the named services and what they need, and registers the listeners meant for commands
   * of the features made: a one-shot command's way, which loads and opens nothing else.
   */
  makeOnly<K extends ServiceName>(names: readonly K[]): Pick<Services, K> {
    for (const name of names) this.need(name);
    this.listen();
    return this.all();
  }

  /** Registers every feature's figures on /metrics. */
  meter(): void {
    const services = this.all<Services>();
    for (const feature of this.features) feature.meters?.(services, this.context);
  }

  /** What runs while the gateway runs, in the declared order. */
  running(): Running[] {
    const services = this.all<Services>();
    return this.features.flatMap((feature) => feature.runs?.(services, this.context) ?? []);
  }

  private make(feature: SomeFeature): void {
    if (this.making.includes(feature)) {
      throw new Error(`features need each other in a circle: ${[...this.making, feature].map((each) => each.name).join(' -> ')}`);
    }
    this.making.push(feature);
    try {
      const provided = feature.make(this.context, this.need) as Record<string, unknown>;
      for (const name of feature.provides) {
        if (!(name in provided)) throw new Error(`feature ${feature.name} did not make "${name}"`);
        this.services.set(name, provided[name]);
      }
    } finally {
      this.making.pop();
    }
    this.made.add(feature);
  }

  private listen(): void {
    const events = this.need('events') as GatewayEvents;
    // In the declared order, whatever order the features were made in: listeners of one event
    // run in the order registered.
    for (const feature of this.features) {
      if (!this.made.has(feature)) continue;
      for (const listening of feature.listens ?? []) {
        if (this.mode === 'command' && !listening.inCommands) continue;
        listening.register(events, this.need, this.context);
      }
    }
  }

  private all<T>(): T {
    return Object.fromEntries(this.services) as T;
  }
}

/** Starts what runs, in order; if one fails, stops those started, and throws. */
export async function startAll(running: readonly Running[]): Promise<void> {
  const started: Running[] = [];
  try {
    for (const part of running) {
      await part.start();
      started.push(part);
    }
  } catch (error) {
    await stopAll(started);
    throw error;
  }
}

/** Stops what runs, phase by phase (or one phase); within a phase in the order started. */
export async function stopAll(running: readonly Running[], phase?: (typeof STOP_PHASES)[number]): Promise<void> {
  for (const each of phase ? [phase] : STOP_PHASES) {
    for (const part of running) if (part.stopsIn === each) await part.stop();
  }
}
