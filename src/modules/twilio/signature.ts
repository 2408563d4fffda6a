// X-Twilio-Signature, as Twilio signs its requests and its helper libraries check them
// (validateRequest): HMAC-SHA1, keyed with the auth token, over the full URL followed by each
// POST parameter's name and value, sorted by name; base64.
import { createHmac } from 'node:crypto';

export function twilioSignature(authToken: string, url: string, params: URLSearchParams): string {
  const names = [...new Set(params.keys())].sort();
  const data = names.reduce((signed, name) => signed + params.getAll(name).sort().map((value) => name + value).join(''), url);
  return createHmac('sha1', authToken).update(Buffer.from(data, 'utf8')).digest('base64');
}
