// The Extended API's routes, in the order its OpenAPI document lists them, and the phones' own
// HTTP endpoints: the route files live with the ways in (src/api/extended/<feature>/), and are
// handed the services they call here. Kept apart from the features so that a one-shot command,
// which makes the account features and serves no route, loads no route's schemas.
import type { RouteDefinition } from '../http/route.ts';
import type { Services } from './feature.ts';
import type { RouteOptions } from './route-options.ts';
import { deviceRoutes } from '../api/extended/devices/routes.ts';
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
import { fleetHealthRoutes } from '../api/extended/fleet-health/routes.ts';
import { canaryRoutes } from '../api/extended/canary/routes.ts';

/**
 * What the running gateway serves under /api/ext/v1, and what the API types of the SDK and the
 * panel are generated from (scripts/generate-sdk-types.ts), so they cannot differ.
 */
export function extendedRoutes(services: Services, { broker, session }: RouteOptions): RouteDefinition[] {
  return [
    ...deviceRoutes(services, broker),
    ...fleetHealthRoutes(services.fleetHealth),
    ...messageRoutes(services),
    ...deliveryRoutes(services.tasks),
    ...incomingRoutes(services.incoming),
    ...callRoutes(services.calls),
    ...recordingRoutes(services.recordings),
    ...mmsRoutes(services),
    ...webhookRoutes(services.webhooks),
    ...sessionRoutes(services.sessions, services.loginThrottle, session),
    ...apiKeyRoutes(services.apiKeys),
    ...liveRoutes(services.live),
    ...userRoutes(services.users),
    // Deleting an account takes everything it owns along: the route is handed every service.
    ...accountRoutes(services.accounts, services.users, services),
    ...statsRoutes(services.stats),
    ...twilioCredentialRoutes(services.twilio),
    ...smppRoutes(services.smpp),
    ...ussdRoutes(services.ussd),
    ...optOutRoutes(services.optOut),
    ...inboundRuleRoutes(services.inboundRules),
    ...conversationRoutes(services),
    ...retentionRoutes(services),
    ...mailRoutes(services.mail),
    ...contactSendRoutes(services),
    ...contactRoutes(services.contacts),
    ...canaryRoutes(services.canary),
  ];
}

/** The phones' own endpoints (uploads with device credentials, not API keys), under /api/device/v1. */
export function phoneRoutes(services: Services): RouteDefinition[] {
  return [
    ...deviceRecordingRoutes(services.recordings, services.devices, services.authThrottle),
    ...deviceMmsRoutes(services.media, services.mms, services.devices, services.authThrottle),
  ];
}
