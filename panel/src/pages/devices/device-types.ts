// The shapes GET /devices, GET /devices/{id} and POST /devices answer (src/modules/devices/schema.ts).
// Kept by hand: the panel bundles no server code besides the SMS segment rules.

export interface Limits {
  per_minute: number | null;
  per_hour: number | null;
  per_day: number | null;
}

export interface QuietHours {
  from: string;
  to: string;
  timezone: string;
}

export interface SimCard {
  index: number;
  name_operator: string;
}

export interface Device {
  id: string;
  type: string;
  /** The name the phone reports about itself. */
  name: string;
  /** The name the user chose; the system name when none was chosen. */
  name_custom: string;
  is_online: boolean;
  is_charging: boolean;
  battery_level: number | null;
  /** The radio's signal strength, percent, from the last heartbeat; null: not reported. */
  signal_percent: number | null;
  can_send_sms: boolean;
  selected_sim: number;
  notify_low_battery: boolean;
  forward_incoming_sms: boolean;
  record_calls: boolean;
  sim_cards: SimCard[];
  send_window: number;
  limits: Limits;
  quiet_hours: QuietHours | null;
  paused_until: string | null;
  paused_reason: string | null;
  created_at: string;
  updated_at: string;
  /** When the device last reported anything; null: never. */
  last_seen_at: string | null;
}

export interface DeviceQueue {
  in_flight: number;
  waiting: number;
  sent_last_minute: number;
  sent_last_hour: number;
  sent_last_day: number;
  blocked_by: 'cannot_send' | 'paused' | 'quiet_hours' | 'window' | 'per_minute' | 'per_hour' | 'per_day' | null;
}

export interface DeviceDetail extends Device {
  queue: DeviceQueue;
}

/** What POST /devices and POST /devices/{id}/token answer. */
export interface IssuedCredentials {
  device: Device;
  /** MQTT credentials; the password (the device token) is shown this once. */
  credentials: { client_id: string; username: string; password: string };
  /** Where the phone connects: host and port (tls: over TLS), or MQTT over WebSocket on the HTTP port. */
  broker: { mqtt_port: number; websocket_path: string; host: string; port: number; tls: boolean; url: string };
  /** smsgw://host:port?v=1&device=...&token=...: everything the device needs, for the QR code. */
  pairing_url: string;
}

export type DeviceRegistration = IssuedCredentials;

/** The circuit breaker's pause is in force (a past paused_until only tells of the last pause). */
export function isPaused(device: Device, now = Date.now()): boolean {
  return device.paused_until !== null && new Date(device.paused_until).getTime() > now;
}
