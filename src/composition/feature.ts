// What a feature of the gateway says about itself, so that the composition can make, wire, start
// and stop every feature the same way, by iterating them: no hand-kept list of services, no
// start or stop call written out per feature.
//
// A feature lives in its module (src/modules/<name>/feature.ts) and says:
// - which services it provides, as members of `Services` (it adds them to that interface itself,
//   with `declare module`), and how they are made from what it needs;
// - who it hears on the event seam (its listeners are registered there and nowhere else);
// - its figures on /metrics;
// - what runs while the gateway runs (timers, sweeps, listeners of other protocols), and in which
//   phase of a stop each part stops;
// - whether it is on in this configuration: a feature that is off makes and registers nothing;
// - its ways in (its routes under src/api/extended/<feature>/, its endpoints elsewhere), imported
//   only when the running gateway asks: a one-shot command makes the account features, and must
//   not load every route's schemas with them.
//
// What a feature needs it asks for by name (`need('devices')`); the composition makes the feature
// that provides it first. A feature therefore never says in which order features are made.
import type Router from '@koa/router';
import type { Config } from '../config.ts';
import type { Logger } from '../common/logger.ts';
import type { Clock } from '../common/clock.ts';
import type { Database } from '../storage/database.ts';
import type { GatewayEvents } from '../event-catalog.ts';
import type { ServiceParts } from './service-parts.ts';
import type { RouteDefinition } from '../http/route.ts';
import type { BrokerAddress } from '../api/extended/devices/routes.ts';
import type { SessionRouteOptions } from '../api/extended/sessions/routes.ts';

/**
 * Every service of the gateway, by name. Empty here: each feature adds the members it provides
 * (`declare module '.../composition/feature.ts' { interface Services { ... } }`), so the whole
 * list is the sum of the features and is kept nowhere by hand.
 */
export interface Services {}

/** The name of a service some feature provides. */
export type ServiceName = keyof Services & string;

/** Asks for a service by name; made (with what it needs) on first ask. */
export type Need = <K extends ServiceName>(name: K) => Services[K];

/** What every feature is made with: the configuration and what exists before any service. */
export interface FeatureContext {
  config: Config;
  db: Database;
  logger: Logger;
  clock: Clock;
  /** What the gateway makes before its services (the broker's links, the cluster's parts); none in a command. */
  parts: ServiceParts;
}

/**
 * When a running part stops, in the order a stop goes through:
 * - `ways-in`: before anything else (listeners of other protocols stop taking requests);
 * - `requests`: as the HTTP server starts closing (streams that would hold it open end);
 * - `work`: while phones are still connected (nothing new is handed out or announced);
 * - `phones-gone`: once the device channel is closed (what phones reported is applied, timers end);
 * - `last`: once the last HTTP request has ended (what requests wrote late is flushed).
 */
export const STOP_PHASES = ['ways-in', 'requests', 'work', 'phones-gone', 'last'] as const;
export type StopPhase = (typeof STOP_PHASES)[number];

/** Something a feature runs while the gateway runs. */
export interface Running {
  name: string;
  start(): void | Promise<void>;
  stop(): void | Promise<void>;
  stopsIn: StopPhase;
  /** Where it listens, by the names the start's log line gives (`smppPort: 2775`, or 'off'); asked once started. */
  listening?(): Record<string, string | number | boolean>;
}

/** A set of listeners on the seam, registered once the feature is made. */
export interface Listening {
  /** Registers the listeners; `need` makes what they use. */
  register(events: GatewayEvents, need: Need, context: FeatureContext): void;
  /**
   * Registered in one-shot commands too (`sms-gateway users disable`), where only the services a
   * command asks for are made: a listener that keeps the records consistent (a disabled user's
   * sessions end) must hear commands' changes as it hears the API's.
   */
  inCommands?: boolean;
}

export interface Feature<Provided extends ServiceName = ServiceName> {
  name: string;
  /** The services it makes; each name is provided by one feature only. */
  provides: readonly Provided[];
  make(context: FeatureContext, need: Need): Pick<Services, Provided>;
  /** Whether it is on in this configuration; on when not said. */
  enabled?(config: Config): boolean;
  listens?: readonly Listening[];
  /**
   * Its figures on /metrics (gauges read when Prometheus scrapes, counters declared so that they
   * show before their first count); the gateway's only, never a command's.
   */
  meters?(services: Services, context: FeatureContext): void;
  /** What it runs while the gateway runs, started in the order features are declared; asked once every feature is made. */
  runs?(services: Services, context: FeatureContext): Running[];
  /** Its ways in, imported when the running gateway (or the API document's generator) asks. */
  waysIn?(): Promise<WaysIn>;
}

/** What routes need to know of the running gateway beyond its services. */
export interface RouteOptions {
  /** Where phones reach the broker (pairing answers). */
  broker: BrokerAddress;
  /** How session cookies are set. */
  session: SessionRouteOptions;
}

/** The ways in a feature serves. */
export interface WaysIn {
  /** Its routes under /api/ext/v1, handed the services they call. */
  routes?(services: Services, options: RouteOptions): RouteDefinition[];
  /** Its endpoints under /api/device/v1, with device credentials, not API keys. */
  phoneRoutes?(services: Services): RouteDefinition[];
  /** Endpoints outside the API families, which prove their callers otherwise (a provider's signature). */
  mount?(router: Router, services: Services, config: Config): void;
}

/** Any feature, whatever it provides: what lists of features hold. */
export type SomeFeature = Feature<any>;

/** Declares a feature, with its services' names checked against what `make` returns. */
export function defineFeature<Provided extends ServiceName>(feature: Feature<Provided>): Feature<Provided> {
  return feature;
}
