// Problems and errors go to logs and to the gateway; phone numbers in them are cut down so a log
// does not become a list of who wrote to whom.

/** Replaces every run of 6 or more digits (with an optional +) by its first 3 characters and "…". */
export function scrubPhoneNumbers(text: string): string {
  return text.replace(/\+?\d{6,}/g, (digits) => `${digits.slice(0, 3)}…`);
}
