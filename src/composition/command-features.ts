// The features a one-shot command (`sms-gateway keys list`) may use: those that keep an account's
// own records. A command imports only these, so that it loads none of the delivery pipeline, the
// webhook sender, the mail relay or the media stores, and makes only the services it asks for.
import { Composition } from './composition.ts';
import type { SomeFeature, FeatureContext, Services } from './feature.ts';
import { coreFeature } from './core-feature.ts';
import { devicesFeature } from '../modules/devices/feature.ts';
import { webhooksFeature } from '../modules/webhooks/feature.ts';
import { sessionsFeature } from '../modules/sessions/feature.ts';
import { apiKeysFeature } from '../modules/api-keys/feature.ts';
import { usersFeature } from '../modules/users/feature.ts';
import { accountsFeature } from '../modules/accounts/feature.ts';
import { twilioFeature } from '../modules/twilio/feature.ts';
import { smppFeature } from '../modules/smpp/feature.ts';

export const COMMAND_FEATURES: readonly SomeFeature[] = [
  coreFeature,
  devicesFeature,
  webhooksFeature,
  sessionsFeature,
  apiKeysFeature,
  usersFeature,
  accountsFeature,
  twilioFeature,
  smppFeature,
];

/** What a command works with: the services that keep an account's own records. */
export const ACCOUNT_SERVICES = ['accounts', 'apiKeys', 'users', 'sessions', 'devices', 'webhooks', 'twilio', 'smpp', 'secrets'] as const;
export type AccountServices = Pick<Services, (typeof ACCOUNT_SERVICES)[number]>;

/** The account services as a command has them: no broker, no webhook sender, no other node unless told. */
export function accountServices(context: FeatureContext): AccountServices {
  return new Composition(COMMAND_FEATURES, context, 'command').makeOnly(ACCOUNT_SERVICES);
}
