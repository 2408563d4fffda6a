// The gateway's features, in order. Each says what it makes, what it hears on the seam, what it
// runs, and the ways in it serves (src/modules/<name>/feature.ts): adding a feature is one line
// here, besides its folders and its migration.
//
// The order is the order listeners are registered and running parts started, and the order of the
// Extended API's OpenAPI document; what one feature needs of another is made first whatever the
// order. A one-shot command registers none of these (src/composition/command-features.ts): it
// makes the account features only, and loads no route's schemas.
import type Router from '@koa/router';
import type { Config } from '../config.ts';
import type { RouteDefinition } from '../http/route.ts';
import type { RouteOptions, Services, SomeFeature, WaysIn } from './feature.ts';
import { coreFeature } from './core-feature.ts';
import { devicesFeature } from '../modules/devices/feature.ts';
import { messagesFeature } from '../modules/messages/feature.ts';
import { deliveryFeature } from '../modules/delivery/feature.ts';
import { incomingFeature } from '../modules/incoming/feature.ts';
import { callsFeature } from '../modules/calls/feature.ts';
import { mmsFeature } from '../modules/mms/feature.ts';
import { webhooksFeature } from '../modules/webhooks/feature.ts';
import { webhookSenderFeature } from '../modules/webhooks/sender-feature.ts';
import { sessionsFeature } from '../modules/sessions/feature.ts';
import { apiKeysFeature } from '../modules/api-keys/feature.ts';
import { liveFeature } from '../modules/live/feature.ts';
import { usersFeature } from '../modules/users/feature.ts';
import { accountsFeature } from '../modules/accounts/feature.ts';
import { statsFeature } from '../modules/stats/feature.ts';
import { twilioFeature } from '../modules/twilio/feature.ts';
import { twilioRepliesFeature } from '../modules/twilio/replies-feature.ts';
import { smppFeature } from '../modules/smpp/feature.ts';
import { smppListenerFeature } from '../modules/smpp/listener-feature.ts';
import { ussdFeature } from '../modules/ussd/feature.ts';
import { optOutFeature } from '../modules/opt-out/feature.ts';
import { inboundRulesFeature } from '../modules/inbound-rules/feature.ts';
import { conversationsFeature } from '../modules/conversations/feature.ts';
import { retentionFeature } from '../modules/retention/feature.ts';
import { mailFeature } from '../modules/mail/feature.ts';
import { mailListenerFeature } from '../modules/mail/listener-feature.ts';
import { contactsFeature } from '../modules/contacts/feature.ts';
import { idempotencyFeature } from '../modules/idempotency/feature.ts';
import { fleetHealthFeature } from '../modules/fleet-health/health-feature.ts';
import { canaryFeature } from '../modules/fleet-health/feature.ts';
import { availabilityFeature } from '../modules/availability/feature.ts';
import { upstreamsFeature } from '../modules/upstreams/feature.ts';

export const GATEWAY_FEATURES: readonly SomeFeature[] = [
  coreFeature,
  devicesFeature,
  fleetHealthFeature,
  availabilityFeature,
  messagesFeature,
  deliveryFeature,
  incomingFeature,
  callsFeature,
  mmsFeature,
  webhooksFeature,
  webhookSenderFeature,
  sessionsFeature,
  apiKeysFeature,
  liveFeature,
  usersFeature,
  accountsFeature,
  statsFeature,
  twilioFeature,
  twilioRepliesFeature,
  smppFeature,
  smppListenerFeature,
  ussdFeature,
  optOutFeature,
  inboundRulesFeature,
  conversationsFeature,
  retentionFeature,
  mailFeature,
  mailListenerFeature,
  contactsFeature,
  idempotencyFeature,
  canaryFeature,
  upstreamsFeature,
];

/** What the features serve, their ways in imported (once the gateway runs: never by a command). */
export class FeatureWaysIn {
  private constructor(private readonly served: readonly WaysIn[]) {}

  static async load(features: readonly SomeFeature[] = GATEWAY_FEATURES): Promise<FeatureWaysIn> {
    return new FeatureWaysIn(await Promise.all(features.map(async (feature) => (await feature.waysIn?.()) ?? {})));
  }

  /**
   * What the running gateway serves under /api/ext/v1, and what the API types of the SDK and the
   * panel are generated from (scripts/generate-sdk-types.ts), so they cannot differ.
   */
  extendedRoutes(services: Services, options: RouteOptions): RouteDefinition[] {
    return this.served.flatMap(({ routes }) => routes?.(services, options) ?? []);
  }

  /** The phones' own endpoints (uploads with device credentials), under /api/device/v1. */
  phoneRoutes(services: Services): RouteDefinition[] {
    return this.served.flatMap(({ phoneRoutes }) => phoneRoutes?.(services) ?? []);
  }

  /** What the features mount outside the API families. */
  mounts(services: Services, config: Config): ((router: Router) => void)[] {
    return this.served.flatMap(({ mount }) => (mount ? [(router: Router) => mount(router, services, config)] : []));
  }
}
