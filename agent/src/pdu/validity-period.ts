// Relative validity (TP-VP, one octet): how long the service centre keeps trying. The scale is
// coarse and grows: 5-minute steps up to 12 h, 30-minute steps up to 24 h, days up to 30 days,
// weeks up to 63 weeks.

export function relativeValidityMinutes(value: number): number {
  if (value <= 143) return (value + 1) * 5;
  if (value <= 167) return 12 * 60 + (value - 143) * 30;
  if (value <= 196) return (value - 166) * 24 * 60;
  return (value - 192) * 7 * 24 * 60;
}

/** The smallest TP-VP that keeps the SMS at least `minutes` (capped at 63 weeks). */
export function encodeRelativeValidity(minutes: number): number {
  for (let value = 0; value <= 255; value++) {
    if (relativeValidityMinutes(value) >= minutes) return value;
  }
  return 255;
}
