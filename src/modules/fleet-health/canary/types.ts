// Canary rounds as other parts of the gateway read them.

export interface CanarySettings {
  account_id: string;
  enabled: boolean;
  interval_minutes: number;
  timeout_seconds: number;
  /** When the next scheduled round starts; null while rounds are off. */
  next_round_at: Date | null;
  last_round_at: Date | null;
  rounds_run: number;
  /** null: never set (the defaults). */
  updated_at: Date | null;
}

export type ProbeResult = 'pending' | 'passed' | 'failed';

/** Why a probe failed. */
export type ProbeFailure =
  /** The receiving phone did not report the code within timeout_seconds. */
  | 'timeout'
  /** The canary SMS ended failed_send (the sender's phone failed it, it expired, it was cancelled). */
  | 'send_failed'
  /** The code arrived on another phone or SIM than the one whose number it was sent to. */
  | 'received_elsewhere';

export interface CanaryProbeRow {
  id: string;
  account_id: string;
  round_id: string;
  round_number: number;
  sender_device_id: string;
  sender_sim: number;
  receiver_device_id: string;
  receiver_sim: number;
  code: string;
  sms_id: string;
  created_at: Date;
  deadline_at: Date;
  result: ProbeResult;
  failure: string | null;
  ended_at: Date | null;
  round_trip_ms: number | null;
}

/** A SIM of the account left out of a round, and why. */
export interface SkippedSim {
  device_id: string;
  /** null: the whole device (offline, may not send, does not forward). */
  sim_slot: number | null;
  reason: 'offline' | 'cannot_send' | 'forwarding_off' | 'no_number' | 'number_shared';
}
