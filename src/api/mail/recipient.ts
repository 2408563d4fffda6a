// Who an email is for: <number>@<SMTP_DOMAIN>, the number in international form, with or without
// its "+". Anything else is refused at RCPT, each with a reply that says why.
import { normalizePhone } from '../../common/phone.ts';

export type RecipientReading = { phone: string } | { refusal: { code: number; text: string } };

export function readRecipient(address: string, domain: string): RecipientReading {
  const at = address.lastIndexOf('@');
  const local = at < 0 ? address : address.slice(0, at);
  const host = at < 0 ? '' : address.slice(at + 1).toLowerCase();
  if (host !== domain) return { refusal: { code: 550, text: `5.7.1 Relay denied: this server takes mail for @${domain} only` } };
  const digits = local.replace(/[\s().-]/g, '');
  const international = /^\d{6,15}$/.test(digits) ? `+${digits}` : digits;
  const phone = /^\+\d{6,15}$/.test(international) ? normalizePhone(international) : undefined;
  if (!phone) {
    return { refusal: { code: 550, text: `5.1.1 <${local.slice(0, 64)}@${domain}>: not a phone number; write it in international form, such as +491701234567@${domain}` } };
  }
  return { phone };
}
