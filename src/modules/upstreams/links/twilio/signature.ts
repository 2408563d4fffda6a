// Checks X-Twilio-Signature on the callbacks a provider posts, with the scheme the gateway signs
// its own Twilio-format webhooks with (src/modules/twilio/signature.ts). Like Twilio's
// validateRequest, the URL is tried as given, without its port and with the scheme's standard
// port: Twilio's back end is not consistent about ports behind a proxy.
import { createHash, timingSafeEqual } from 'node:crypto';
import { twilioSignature } from '../../../twilio/signature.ts';

export function verifyTwilioSignature(url: string, params: Record<string, string>, header: string | undefined, authToken: string): boolean {
  if (!header || !authToken) return false;
  const form = new URLSearchParams(params);
  // Every form is compared, and by digest: the time taken says nothing of where a guess differs.
  let valid = false;
  for (const candidate of urlForms(url)) valid = sameText(twilioSignature(authToken, candidate, form), header) || valid;
  return valid;
}

function urlForms(url: string): string[] {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return [url];
  }
  const withoutPort = new URL(parsed);
  withoutPort.port = '';
  const forms = new Set([url, withoutPort.toString()]);
  if (!parsed.port) forms.add(`${parsed.protocol}//${parsed.host}${parsed.protocol === 'https:' ? ':443' : ':80'}${parsed.pathname}${parsed.search}`);
  return [...forms];
}

function sameText(expected: string, given: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(expected), digest(given));
}
