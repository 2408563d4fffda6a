// Phone numbers are checked against real numbering plans (libphonenumber's full metadata) and
// stored in E.164, the international form the spec shows (2.2: "+7..."). Without a default
// region only numbers written internationally (with + or 00) are accepted.
import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js/max';

export function normalizePhone(raw: string, defaultRegion?: string): string | undefined {
  const text = raw.trim().replace(/^00/, '+');
  if (text.length > 40) return undefined;
  const parsed = parsePhoneNumberFromString(text, defaultRegion ? { defaultCountry: defaultRegion as CountryCode } : undefined);
  return parsed?.isValid() ? parsed.number : undefined;
}
