import type { Static } from '@sinclair/typebox';
import type { CanaryProbeView, CanaryRoundView, CanarySettingsView } from './schema.ts';
import type { RoundStarted } from './service.ts';
import type { CanaryProbeRow, CanarySettings } from './types.ts';

const iso = (at: Date | string | null): string | null => (at === null ? null : new Date(at).toISOString());

export function presentCanarySettings(settings: CanarySettings): Static<typeof CanarySettingsView> {
  return {
    enabled: settings.enabled,
    interval_minutes: settings.interval_minutes,
    timeout_seconds: settings.timeout_seconds,
    next_round_at: iso(settings.next_round_at),
    last_round_at: iso(settings.last_round_at),
    rounds_run: settings.rounds_run,
    updated_at: iso(settings.updated_at),
  };
}

export function presentProbe(probe: CanaryProbeRow): Static<typeof CanaryProbeView> {
  return {
    id: probe.id,
    sms_id: probe.sms_id,
    sender_device_id: probe.sender_device_id,
    sender_sim_slot: Number(probe.sender_sim),
    receiver_device_id: probe.receiver_device_id,
    receiver_sim_slot: Number(probe.receiver_sim),
    code: probe.code,
    result: probe.result,
    failure: probe.failure,
    round_trip_ms: probe.round_trip_ms === null ? null : Number(probe.round_trip_ms),
    created_at: iso(probe.created_at)!,
    deadline_at: iso(probe.deadline_at)!,
  };
}

export function presentRound(round: RoundStarted): Static<typeof CanaryRoundView> {
  return { round: round.round, probes: round.probes.map(presentProbe), skipped: round.skipped };
}
