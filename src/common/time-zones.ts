// Time zones as clients name them (IANA names, such as Europe/Berlin), checked by the runtime's own tables.
export function isValidTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}
