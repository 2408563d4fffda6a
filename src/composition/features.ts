// The gateway's features. Their listeners are registered, and what they run is started, in this
// order; what one needs of another is made first whatever the order. Adding a feature is
// one line here, besides its folder and its migration (and, if it serves routes, one line in
// extended-routes.ts).
import type { SomeFeature } from './feature.ts';
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

export const GATEWAY_FEATURES: readonly SomeFeature[] = [
  coreFeature,
  devicesFeature,
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
  fleetHealthFeature,
];

