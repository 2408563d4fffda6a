// Logs and problems name a number only by its ends: enough to tell two apart, not to dial one.
export function maskPhone(phone: string): string {
  if (phone.length <= 5) return '…';
  return `${phone.slice(0, 3)}…${phone.slice(-2)}`;
}
