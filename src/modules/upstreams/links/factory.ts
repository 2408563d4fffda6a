// Makes the link of an upstream's kind from its stored settings and its opened secret.
import type { Clock } from '../../../common/clock.ts';
import type { Logger } from '../../../common/logger.ts';
import type { SmppUpstreamSettings, TwilioUpstreamSettings, UpstreamKind, UpstreamRow } from '../types.ts';
import type { OpenLink } from './manager.ts';
import { checkSmppLinkSettings, SmppLink, type SmppDestinationGuard, type SmppLinkSettings } from './smpp/index.ts';
import { checkTwilioLinkSettings, TwilioLink, type LinkDestinationGuard, type TwilioLinkSettings } from './twilio/index.ts';

/** Where a Twilio-compatible provider posts an upstream's status callbacks, under PUBLIC_URL. */
export function statusCallbackPath(upstreamId: string): string {
  return `/api/upstream/v1/${upstreamId}/twilio/status`;
}

/** Where it posts SMS sent to the account's number there (its inbound webhook). */
export function incomingCallbackPath(upstreamId: string): string {
  return `/api/upstream/v1/${upstreamId}/twilio/incoming`;
}

function smppLinkSettings(settings: SmppUpstreamSettings, password: string): SmppLinkSettings {
  return {
    host: settings.host,
    port: settings.port,
    tls: settings.tls,
    systemId: settings.system_id,
    password,
    systemType: settings.system_type,
    bindMode: settings.bind_mode,
    sourceAddr: settings.source_addr,
    throughputPerSecond: settings.throughput_per_second,
    windowSize: settings.window_size,
    enquireLinkSeconds: settings.enquire_link_seconds,
  };
}

function twilioLinkSettings(settings: TwilioUpstreamSettings, authToken: string): TwilioLinkSettings {
  return {
    baseUrl: settings.base_url,
    accountSid: settings.account_sid,
    authToken,
    ...(settings.from ? { from: settings.from } : {}),
    ...(settings.messaging_service_sid ? { messagingServiceSid: settings.messaging_service_sid } : {}),
    maxConcurrent: settings.max_concurrent,
    throughputPerSecond: settings.throughput_per_second,
  };
}

/**
 * What the link of this kind would refuse in these settings, each problem named by the field as
 * the API spells it (system_id, not the link's systemId); empty when it can be made.
 */
export function linkSettingsProblems(kind: UpstreamKind, settings: SmppUpstreamSettings | TwilioUpstreamSettings, secret: string): { field: string; message: string }[] {
  const problems =
    kind === 'smpp'
      ? checkSmppLinkSettings(smppLinkSettings(settings as SmppUpstreamSettings, secret))
      : checkTwilioLinkSettings(twilioLinkSettings(settings as TwilioUpstreamSettings, secret));
  return problems.map((problem) => {
    // Each problem begins with the link's name of its field.
    const named = /^[a-z][A-Za-z]*/.exec(problem)?.[0] ?? 'settings';
    const field = named.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
    return { field, message: field + problem.slice(named.length) };
  });
}

export function linkFactory(parts: { guard: LinkDestinationGuard & SmppDestinationGuard; publicUrl: string | undefined; clock: Clock; logger: Logger }): OpenLink {
  return (upstream: UpstreamRow, secret, events) => {
    if (upstream.kind === 'smpp') {
      return new SmppLink(smppLinkSettings(upstream.settings as SmppUpstreamSettings, secret), events, parts.logger, { clock: parts.clock, guard: parts.guard });
    }
    return new TwilioLink(twilioLinkSettings(upstream.settings as TwilioUpstreamSettings, secret), events, parts.logger, {
      guard: parts.guard,
      // Without PUBLIC_URL the provider cannot reach back: the SMS are sent, and stay "sent".
      ...(parts.publicUrl ? { statusCallbackUrl: new URL(statusCallbackPath(upstream.id), parts.publicUrl).toString() } : {}),
    });
  };
}
