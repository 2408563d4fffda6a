// A device as other modules see it: its row, as the devices module stores it.
import type { DeviceCapabilities } from './capabilities.ts';
import type { DeviceRadio } from './radio.ts';
/** A daily window in which the device sends nothing (README "Delivery"). */
export interface QuietHours {
  /** "HH:MM", local time, inclusive. */
  from: string;
  /** "HH:MM", local time, exclusive; earlier than `from` for a window across midnight. */
  to: string;
  /** IANA time zone name, such as Europe/Berlin. */
  timezone: string;
}

/** A random pause between two tasks handed to the device, drawn between these bounds (seconds). */
export interface SendJitter {
  min_seconds: number;
  max_seconds: number;
}

export interface SimCard {
  index: number;
  name_operator: string;
  /** The SIM's own number in E.164, as the phone reported it; absent when the phone does not know it. */
  phone_number?: string;
}

/** The owner's number for each SIM slot ("0"-"7"), E.164: it wins over the one the phone reports. */
export type SimNumbers = Record<string, string>;

/**
 * What a carrier lets one SIM send: tasks handed to it in the last 24 hours (rolling) and in the
 * calendar month (UTC), and distinct recipients in the calendar month. Absent: no such limit.
 */
export interface SimLimit {
  per_day?: number;
  per_month?: number;
  recipients_per_month?: number;
}

/** The owner's limits by SIM slot ("0"-"7"); {} when none was set. */
export type SimLimits = Record<string, SimLimit>;

export interface DeviceRow {
  id: string;
  object_id: string;
  account_id: string;
  name: string;
  name_custom: string | null;
  /** The device group the account put it in (routes may target it); null: none. */
  group_name: string | null;
  type: string;
  app_version: string | null;
  can_send_sms: boolean;
  selected_sim: number;
  notify_low_battery: boolean;
  forward_incoming_sms: boolean;
  record_calls: boolean;
  battery_level: number | null;
  /** The radio's signal strength, percent, from the last heartbeat; null when it did not say. */
  signal_percent: number | null;
  /** Received SMS the phone keeps while forwarding is off, from the last heartbeat; null when it did not say. */
  incoming_held: number | null;
  /** What the device said it can do in its last heartbeat; null: it never says (taken to do everything). */
  capabilities: DeviceCapabilities | null;
  /** What its agent said of its radio in the last heartbeat; null: it never says (taken to send). */
  radio: DeviceRadio | null;
  is_charging: boolean;
  sim_cards: SimCard[];
  /** The owner's SIM numbers, by slot; {} when none was set. */
  sim_numbers: SimNumbers;
  /** Limits carriers put on each SIM, by slot; {} when none was set. */
  sim_limits: SimLimits;
  token_hash: string;
  /** Pacing (README "Delivery"): tasks in flight at once, sends per minute/hour/day, quiet hours. */
  send_window: number;
  limit_per_minute: number | null;
  limit_per_hour: number | null;
  limit_per_day: number | null;
  quiet_hours: QuietHours | null;
  /** Circuit breaker: failed sends in a row, and the pause they caused. */
  consecutive_failures: number;
  paused_until: Date | null;
  paused_reason: string | null;
  /** Attempts a failed send gets on this device; null: the account's default. */
  max_send_attempts: number | null;
  /** A random pause between two tasks handed to it; null: none. */
  send_jitter: SendJitter | null;
  last_seen_at: Date | null;
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
}
