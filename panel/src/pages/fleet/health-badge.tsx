// A device's or a SIM's health: the word first (never colour alone), tinted by what it means.
import type { HealthState } from '../../api/types.ts';

const TONES: Record<HealthState, string> = { healthy: 'good', degraded: 'bad', unknown: 'neutral' };

export function HealthBadge({ state }: { state: HealthState }) {
  return (
    <span class={`badge badge-${TONES[state]}`} data-health={state}>
      {state}
    </span>
  );
}

/** Shown where a health read answered 404: the gateway serves no health for devices. */
export function HealthUnavailable() {
  return (
    <span class="muted" data-health="not-available">
      not available
    </span>
  );
}
