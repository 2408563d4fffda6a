// What the rest of the gateway uses of the Twilio link: the link, the check of its settings, and
// the pure readers of what a provider posts back (for the endpoints that receive it).
export { TwilioLink, type TwilioLinkOptions, type LinkDestinationGuard, type CallbackResult } from './twilio-link.ts';
export { checkTwilioLinkSettings, TWILIO_LINK_DEFAULTS, type TwilioLinkSettings } from './settings.ts';
export { readStatusCallback } from './status-callback.ts';
export { readIncoming } from './incoming.ts';
export { verifyTwilioSignature } from './signature.ts';
