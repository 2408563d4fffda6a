// Termux:API writes times as "yyyy-MM-dd HH:mm:ss" in the phone's own time zone, without the zone.
// The agent runs on that same phone, so the local time zone of this process is the right one.

const LOCAL_TIME = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/;

/** The instant a Termux:API time string names, or undefined when it is not in that form. */
export function parseTermuxLocalTime(text: string): Date | undefined {
  const match = LOCAL_TIME.exec(text.trim());
  if (!match) return undefined;
  const [year, month, day, hour, minute, second] = match.slice(1).map(Number) as [number, number, number, number, number, number];
  const date = new Date(year, month - 1, day, hour, minute, second);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/**
 * Seconds in a call duration as termux-call-log prints it: "MM:SS", or "HH:MM:SS" from an hour
 * on. Undefined when it is in neither form.
 */
export function parseTermuxDuration(text: string): number | undefined {
  const parts = text.trim().split(':');
  if (parts.length < 2 || parts.length > 3 || !parts.every((part) => /^\d+$/.test(part))) return undefined;
  return parts.map(Number).reduce((total, part) => total * 60 + part, 0);
}
