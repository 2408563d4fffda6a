// One status vocabulary inside, two outside (architecture decision 2). The Extended API shows the
// spec's strings (3.1), where "processing" has no word of its own and shows as pending.
export const SMS_STATUSES = ['pending', 'processing', 'sent', 'delivered', 'undelivered', 'failed_send', 'failed_delivery'] as const;
export type SmsStatus = (typeof SMS_STATUSES)[number];

export const EXTENDED_STATUSES = ['pending', 'sent', 'delivered', 'undelivered', 'failed_send', 'failed_delivery'] as const;
export type ExtendedStatus = (typeof EXTENDED_STATUSES)[number];

export function toExtendedStatus(status: SmsStatus): ExtendedStatus {
  return status === 'processing' ? 'pending' : status;
}

/** The internal statuses an Extended API status filter stands for. */
export function fromExtendedStatus(status: ExtendedStatus): SmsStatus[] {
  return status === 'pending' ? ['pending', 'processing'] : [status];
}

/** Internal statuses whose Extended name contains `text`, case-insensitively (a list's search). */
export function statusesNamed(text: string): SmsStatus[] {
  const needle = text.toLowerCase();
  return SMS_STATUSES.filter((status) => toExtendedStatus(status).includes(needle));
}

/** Assigned to a device but not yet sent: what "in flight" means when choosing a device. */
export const IN_FLIGHT_STATUSES: readonly SmsStatus[] = ['pending', 'processing'];

/** Reasons of a failed_send the gateway decided before any phone acknowledged the task. */
export const ENDED_BY_GATEWAY: ReadonlySet<string> = new Set(['cancelled', 'expired', 'device_disabled', 'device_deleted', 'recipient_opted_out']);
