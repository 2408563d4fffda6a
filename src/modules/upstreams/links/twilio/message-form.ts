// The form of a "create a Message" request, as Twilio's helper libraries send it. Pure.
import type { UpstreamSubmission } from '../link.ts';
import type { TwilioLinkSettings } from './settings.ts';

/** Twilio's bounds for ValidityPeriod, in seconds. */
const VALIDITY_SECONDS = { min: 1, max: 36_000 };

export function messageForm(
  settings: Pick<TwilioLinkSettings, 'from' | 'messagingServiceSid'>,
  submission: UpstreamSubmission,
  statusCallbackUrl: string | undefined,
  now = Date.now(),
): URLSearchParams {
  const form = new URLSearchParams();
  form.set('To', submission.phone);
  const from = submission.from ?? settings.from;
  if (from) form.set('From', from);
  if (settings.messagingServiceSid) form.set('MessagingServiceSid', settings.messagingServiceSid);
  form.set('Body', submission.text);
  // Asked for whatever the SMS's delivery report setting: "sent", "failed" and "undelivered" are
  // what became of the SMS, not delivery reports, and the gateway learns them only this way.
  if (statusCallbackUrl) form.set('StatusCallback', statusCallbackUrl);
  if (submission.validUntil) {
    const seconds = Math.ceil((submission.validUntil.getTime() - now) / 1000);
    form.set('ValidityPeriod', String(Math.min(Math.max(seconds, VALIDITY_SECONDS.min), VALIDITY_SECONDS.max)));
  }
  return form;
}
