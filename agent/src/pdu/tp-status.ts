// TP-Status of a status report, in three outcomes: the part reached the phone; the centre is still
// trying (a temporary error); the centre gave up (a permanent error, or a temporary one it stopped
// retrying). Values no table names are read by their range, as the standard asks.

export type DeliveryOutcome = 'delivered' | 'pending' | 'undelivered';

export interface DeliveryStatus {
  outcome: DeliveryOutcome;
  /** What the status means, in plain words. */
  reason: string;
}

const REASONS: ReadonlyMap<number, string> = new Map([
  [0x00, 'received by the recipient'],
  [0x01, 'forwarded to the recipient, delivery not confirmed'],
  [0x02, 'replaced by the service centre'],
  [0x20, 'network congestion'],
  [0x21, 'recipient busy'],
  [0x22, 'no response from the recipient'],
  [0x23, 'service rejected'],
  [0x24, 'quality of service not available'],
  [0x25, 'error in the recipient\'s phone'],
  [0x40, 'remote procedure error'],
  [0x41, 'incompatible destination'],
  [0x42, 'connection rejected by the recipient'],
  [0x43, 'not obtainable'],
  [0x44, 'quality of service not available'],
  [0x45, 'no interworking available'],
  [0x46, 'validity period expired'],
  [0x47, 'deleted by the sender'],
  [0x48, 'deleted by the service centre administration'],
  [0x49, 'the message does not exist'],
  [0x60, 'network congestion, no more attempts'],
  [0x61, 'recipient busy, no more attempts'],
  [0x62, 'no response from the recipient, no more attempts'],
  [0x63, 'service rejected, no more attempts'],
  [0x64, 'quality of service not available, no more attempts'],
  [0x65, 'error in the recipient\'s phone, no more attempts'],
]);

export function deliveryStatus(status: number): DeliveryStatus {
  const hex = `0x${status.toString(16).padStart(2, '0')}`;
  const reason = REASONS.get(status) ?? `status ${hex}`;
  if (status <= 0x1f) return { outcome: 'delivered', reason };
  if (status <= 0x3f) return { outcome: 'pending', reason: `${reason} (still trying)` };
  if (status <= 0x5f) return { outcome: 'undelivered', reason };
  if (status <= 0x7f) return { outcome: 'undelivered', reason };
  return { outcome: 'undelivered', reason: `unknown status ${hex}` };
}
