// The SMPP upstream link: what the rest of the gateway uses of it.
export { SmppLink, THROTTLE_PAUSE_MS, type SmppLinkOptions } from './smpp-link.ts';
export { checkSmppLinkSettings, SMPP_LINK_DEFAULTS, type SmppBindMode, type SmppLinkSettings } from './settings.ts';
export type { SmppDestinationGuard } from './destination.ts';
