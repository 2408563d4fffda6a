// The gateway's features, each with the ways in it serves: its Extended API routes (under
// src/api/extended/<feature>/) and the phones' own endpoints. Adding a feature is one line here,
// besides its folders and its migration.
//
// The order is the order listeners are registered and running parts started, and the order of the
// Extended API's OpenAPI document; what one feature needs of another is made first whatever the
// order. A one-shot command registers none of these (src/composition/command-features.ts): it
// makes the account features only, and loads no route's schemas.
import type Router from '@koa/router';
import type { Config } from '../config.ts';
import type { RouteDefinition } from '../http/route.ts';
import type { BrokerAddress } from '../api/extended/devices/routes.ts';
import type { SessionRouteOptions } from '../api/extended/sessions/routes.ts';
import type { SomeFeature, Services } from './feature.ts';
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
import { deviceRoutes } from '../api/extended/devices/routes.ts';
import { fleetHealthRoutes } from '../api/extended/fleet-health/routes.ts';
import { messageRoutes } from '../api/extended/messages/routes.ts';
import { deliveryRoutes } from '../api/extended/delivery/routes.ts';
import { incomingRoutes } from '../api/extended/incoming/routes.ts';
import { callRoutes } from '../api/extended/calls/routes.ts';
import { deviceRecordingRoutes, recordingRoutes } from '../api/extended/calls/recordings/routes.ts';
import { mmsRoutes } from '../api/extended/mms/routes.ts';
import { deviceMmsRoutes } from '../api/extended/mms/device-routes.ts';
import { webhookRoutes } from '../api/extended/webhooks/registration/routes.ts';
import { sessionRoutes } from '../api/extended/sessions/routes.ts';
import { apiKeyRoutes } from '../api/extended/api-keys/routes.ts';
import { liveRoutes } from '../api/extended/live/routes.ts';
import { userRoutes } from '../api/extended/users/routes.ts';
import { accountRoutes } from '../api/extended/accounts/routes.ts';
import { statsRoutes } from '../api/extended/stats/routes.ts';
import { twilioCredentialRoutes } from '../api/extended/twilio/routes.ts';
import { smppRoutes } from '../api/extended/smpp/routes.ts';
import { ussdRoutes } from '../api/extended/ussd/routes.ts';
import { optOutRoutes } from '../api/extended/opt-out/routes.ts';
import { inboundRuleRoutes } from '../api/extended/inbound-rules/routes.ts';
import { conversationRoutes } from '../api/extended/conversations/routes.ts';
import { retentionRoutes } from '../api/extended/retention/routes.ts';
import { mailRoutes } from '../api/extended/mail/routes.ts';
import { contactSendRoutes } from '../api/extended/contacts/send-routes.ts';
import { contactRoutes } from '../api/extended/contacts/routes.ts';
import { canaryRoutes } from '../api/extended/canary/routes.ts';
import { availabilityRoutes } from '../api/extended/availability/routes.ts';
import { upstreamRoutes } from '../api/extended/upstreams/routes.ts';
import { mountUpstreamCallbacks } from '../api/upstream-callbacks/routes.ts';

/** What routes need to know of the running gateway beyond its services. */
export interface RouteOptions {
  /** Where phones reach the broker (pairing answers). */
  broker: BrokerAddress;
  /** How session cookies are set. */
  session: SessionRouteOptions;
}

/** A feature as the running gateway has it: the feature, and the ways in it serves. */
export interface GatewayFeature {
  feature: SomeFeature;
  /** Its routes under /api/ext/v1, handed the services they call. */
  routes?: (services: Services, options: RouteOptions) => RouteDefinition[];
  /** Its endpoints under /api/device/v1, with device credentials, not API keys. */
  phoneRoutes?: (services: Services) => RouteDefinition[];
  /** Endpoints outside the API families, which prove their callers otherwise (a provider's signature). */
  mount?: (router: Router, services: Services, config: Config) => void;
}

export const GATEWAY_FEATURES: readonly GatewayFeature[] = [
  { feature: coreFeature },
  { feature: devicesFeature, routes: (s, { broker }) => deviceRoutes(s, broker) },
  { feature: fleetHealthFeature, routes: (s) => fleetHealthRoutes(s.fleetHealth) },
  { feature: availabilityFeature, routes: (s) => availabilityRoutes(s.availability) },
  { feature: messagesFeature, routes: (s) => messageRoutes(s) },
  { feature: deliveryFeature, routes: (s) => deliveryRoutes(s.tasks) },
  { feature: incomingFeature, routes: (s) => incomingRoutes(s.incoming) },
  {
    feature: callsFeature,
    routes: (s) => [...callRoutes(s.calls), ...recordingRoutes(s.recordings)],
    phoneRoutes: (s) => deviceRecordingRoutes(s.recordings, s.devices, s.authThrottle),
  },
  { feature: mmsFeature, routes: (s) => mmsRoutes(s), phoneRoutes: (s) => deviceMmsRoutes(s.media, s.mms, s.devices, s.authThrottle) },
  { feature: webhooksFeature, routes: (s) => webhookRoutes(s.webhooks) },
  { feature: webhookSenderFeature },
  { feature: sessionsFeature, routes: (s, { session }) => sessionRoutes(s.sessions, s.loginThrottle, session) },
  { feature: apiKeysFeature, routes: (s) => apiKeyRoutes(s.apiKeys) },
  { feature: liveFeature, routes: (s) => liveRoutes(s.live) },
  { feature: usersFeature, routes: (s) => userRoutes(s.users) },
  // Deleting an account takes everything it owns along: the route is handed every service.
  { feature: accountsFeature, routes: (s) => accountRoutes(s.accounts, s.users, s) },
  { feature: statsFeature, routes: (s) => statsRoutes(s.stats) },
  { feature: twilioFeature, routes: (s) => twilioCredentialRoutes(s.twilio) },
  { feature: twilioRepliesFeature },
  { feature: smppFeature, routes: (s) => smppRoutes(s.smpp) },
  { feature: smppListenerFeature },
  { feature: ussdFeature, routes: (s) => ussdRoutes(s.ussd) },
  { feature: optOutFeature, routes: (s) => optOutRoutes(s.optOut) },
  { feature: inboundRulesFeature, routes: (s) => inboundRuleRoutes(s.inboundRules) },
  { feature: conversationsFeature, routes: (s) => conversationRoutes(s) },
  { feature: retentionFeature, routes: (s) => retentionRoutes(s) },
  { feature: mailFeature, routes: (s) => mailRoutes(s.mail) },
  { feature: mailListenerFeature },
  { feature: contactsFeature, routes: (s) => [...contactSendRoutes(s), ...contactRoutes(s.contacts)] },
  { feature: idempotencyFeature },
  { feature: canaryFeature, routes: (s) => canaryRoutes(s.canary) },
  {
    feature: upstreamsFeature,
    routes: (s) => upstreamRoutes(s.upstreams),
    mount: (router, s, config) => mountUpstreamCallbacks(router, { links: s.upstreamLinks, publicUrl: config.publicUrl, bodyLimitBytes: config.bodyLimitBytes }),
  },
];

/**
 * What the running gateway serves under /api/ext/v1, and what the API types of the SDK and the
 * panel are generated from (scripts/generate-sdk-types.ts), so they cannot differ.
 */
export function extendedRoutes(services: Services, options: RouteOptions): RouteDefinition[] {
  return GATEWAY_FEATURES.flatMap(({ routes }) => routes?.(services, options) ?? []);
}

/** What the features mount outside the API families. */
export function featureMounts(services: Services, config: Config): ((router: Router) => void)[] {
  return GATEWAY_FEATURES.flatMap(({ mount }) => (mount ? [(router: Router) => mount(router, services, config)] : []));
}

/** The phones' own endpoints (uploads with device credentials), under /api/device/v1. */
export function phoneRoutes(services: Services): RouteDefinition[] {
  return GATEWAY_FEATURES.flatMap((each) => each.phoneRoutes?.(services) ?? []);
}
