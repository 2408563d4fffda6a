// The SMS list's filters as GET /sms takes them. Dates are picked as days in the browser's zone:
// "From" starts at that day's midnight, "To" includes its whole day (the API's `to` is exclusive).
export interface SmsFilters {
  search: string;
  status: string;
  deviceId: string;
  fromDay: string;
  toDay: string;
}

export const NO_FILTERS: SmsFilters = { search: '', status: '', deviceId: '', fromDay: '', toDay: '' };

export function smsListQuery(filters: SmsFilters) {
  return {
    search: filters.search.trim() || undefined,
    status: filters.status || undefined,
    device_id: filters.deviceId || undefined,
    from: startOfDay(filters.fromDay),
    to: startOfDay(filters.toDay, 1),
  };
}

/** The ISO time of local midnight of `day` (YYYY-MM-DD) plus `addDays`; undefined if no day. */
function startOfDay(day: string, addDays = 0): string | undefined {
  const parts = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  if (!parts) return undefined;
  return new Date(Number(parts[1]), Number(parts[2]) - 1, Number(parts[3]) + addDays).toISOString();
}

export function hasFilters(filters: SmsFilters): boolean {
  return Object.values(filters).some((value) => value.trim() !== '');
}
