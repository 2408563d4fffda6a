// validity_period as SMPP's absolute time, "YYMMDDhhmmsstnnp": written in UTC, so the tenths are
// 0, the quarter-hour offset 00 and the sign "+".
export function absoluteSmppTime(at: Date): string {
  const two = (n: number) => String(n).padStart(2, '0');
  return (
    two(at.getUTCFullYear() % 100) +
    two(at.getUTCMonth() + 1) +
    two(at.getUTCDate()) +
    two(at.getUTCHours()) +
    two(at.getUTCMinutes()) +
    two(at.getUTCSeconds()) +
    '000+'
  );
}
