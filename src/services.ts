// The gateway's services, made by its features (src/composition/features.ts lists them): the
// one import for what needs the whole set (the gateway, benchmarks, tests).
import type { Config } from './config.ts';
import type { Database } from './storage/database.ts';
import type { Logger } from './common/logger.ts';
import { systemClock, type Clock } from './common/clock.ts';
import { Composition } from './composition/composition.ts';
import type { Services } from './composition/feature.ts';
import { GATEWAY_FEATURES } from './composition/features.ts';
import type { ServiceParts } from './composition/service-parts.ts';

export type { Services } from './composition/feature.ts';
export type { ServiceParts } from './composition/service-parts.ts';
export { createMetrics } from './composition/core-feature.ts';

/** Every feature's services, made and listening, with nothing started. */
export function createServices(config: Config, db: Database, logger: Logger, clock: Clock = systemClock, parts: ServiceParts = {}): Services {
  return gatewayComposition(config, db, logger, clock, parts).makeAll();
}

/** The gateway's features on one database, to be made (the gateway also gathers their routes and what they run). */
export function gatewayComposition(config: Config, db: Database, logger: Logger, clock: Clock = systemClock, parts: ServiceParts = {}): Composition {
  return new Composition(GATEWAY_FEATURES, { config, db, logger, clock, parts }, 'gateway');
}
