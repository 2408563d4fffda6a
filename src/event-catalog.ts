// Everything one part of the gateway announces to the others, and what each announcement
// carries: the events each module declares (its domain-events.ts), joined here in composition,
// where who hears what is decided by the features (src/modules/<name>/feature.ts). Events written in a transaction are heard
// there first (what follows from the change commits or fails with it), and again once it commits;
// the others are heard as they happen.
import type { DomainEvents } from './events/domain-events.ts';
import type { CacheEvents } from './cluster/cache-events.ts';
import type { CallsEvents } from './modules/calls/domain-events.ts';
import type { DeliveryEvents } from './modules/delivery/domain-events.ts';
import type { DevicesEvents } from './modules/devices/domain-events.ts';
import type { FleetHealthEvents } from './modules/fleet-health/domain-events.ts';
import type { IncomingEvents } from './modules/incoming/domain-events.ts';
import type { MessagesEvents } from './modules/messages/domain-events.ts';
import type { MmsEvents } from './modules/mms/domain-events.ts';
import type { OptOutEvents } from './modules/opt-out/domain-events.ts';
import type { SmppEvents } from './modules/smpp/domain-events.ts';
import type { UsersEvents } from './modules/users/domain-events.ts';
import type { UssdEvents } from './modules/ussd/domain-events.ts';
import type { WebhooksEvents } from './modules/webhooks/domain-events.ts';

/** Every module's events, and the news other nodes send. */
type ModuleEvents = [
  MessagesEvents,
  DeliveryEvents,
  DevicesEvents,
  IncomingEvents,
  FleetHealthEvents,
  MmsEvents,
  CallsEvents,
  UssdEvents,
  UsersEvents,
  SmppEvents,
  OptOutEvents,
  WebhooksEvents,
  CacheEvents,
];

export type DomainEventMap = Joined<ModuleEvents>;

export type DomainEventName = keyof DomainEventMap;

/** The gateway's one seam, carrying every event of the catalog. */
export type GatewayEvents = DomainEvents<DomainEventMap>;

type Joined<Maps extends object[]> = Maps extends [infer First, ...infer Rest extends object[]] ? First & Joined<Rest> : unknown;

/** The names declared by more than one module. */
type DeclaredTwice<Maps extends object[], Seen = never> = Maps extends [infer First, ...infer Rest extends object[]]
  ? (keyof First & Seen) | DeclaredTwice<Rest, Seen | keyof First>
  : never;

/**
 * Fails to compile when two modules declare one event name: joined, their payloads would quietly
 * become one type that neither announces.
 */
export type EachEventDeclaredOnce = Expect<[DeclaredTwice<ModuleEvents>] extends [never] ? true : false>;
type Expect<T extends true> = T;
