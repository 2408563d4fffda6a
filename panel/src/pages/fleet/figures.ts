// How the fleet's figures read: ratios as percentages, times in seconds, absent figures as a dash.

export function formatRatio(ratio: number | null | undefined): string {
  if (ratio === null || ratio === undefined) return '—';
  return `${(ratio * 100).toFixed(ratio === 1 || ratio === 0 ? 0 : 1)}%`;
}

export function formatMs(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '—';
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${(ms / 60_000).toFixed(1)} min`;
}

/** "SIM 1" for slot 0: phones number their SIMs from 1. */
export function simLabel(slot: number | null): string {
  return slot === null ? 'SIM unknown' : `SIM ${slot + 1}`;
}
