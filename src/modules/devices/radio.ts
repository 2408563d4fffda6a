// What a device's agent says of its own radio in its heartbeat: whether it can send now, and if
// not, why (Termux:API not answering, a permission missing, no SIM, no network). The gateway
// believes it: a device whose radio says it cannot send is handed no new work until a heartbeat
// says it can again, rather than failing the SMS handed to it one by one. A device that never
// says (an agent older than this) is handed work as before.
import { Type, type Static } from '@sinclair/typebox';

/** The problems agents name today (docs/devices.md); a newer agent may name others of this form. */
export const RADIO_PROBLEMS = [
  'termux_api_unresponsive',
  'termux_api_missing',
  'permission_missing',
  'no_sim',
  'sim_locked',
  'not_registered',
  'modem_unresponsive',
] as const;

export const RADIO_PROBLEM_PATTERN = '^[a-z][a-z0-9_]{0,49}$';

/** The heartbeat's radio object, as the agent sends it. */
export const RadioHealth = Type.Object(
  {
    can_send: Type.Boolean({ description: 'whether the radio can send an SMS now, as the agent last found it' }),
    problem: Type.Optional(
      Type.String({ pattern: RADIO_PROBLEM_PATTERN, description: `why it cannot (or what is wrong): ${RADIO_PROBLEMS.join(', ')}, or another of this form` }),
    ),
    detail: Type.Optional(Type.String({ maxLength: 300, description: "the radio's own words for it, in one line" })),
  },
  { additionalProperties: false },
);

export type RadioHealth = Static<typeof RadioHealth>;

/** What the device row keeps: the last heartbeat's radio, with when it came. */
export interface DeviceRadio {
  can_send: boolean;
  problem: string | null;
  detail: string | null;
  /** ISO 8601. */
  reported_at: string;
}

export function storedRadio(health: RadioHealth, at: Date): DeviceRadio {
  return { can_send: health.can_send, problem: health.problem ?? null, detail: health.detail ?? null, reported_at: at.toISOString() };
}

/** Whether the radio said it cannot send (null: never said, taken to send). */
export function radioCannotSend(radio: Pick<DeviceRadio, 'can_send'> | null | undefined): boolean {
  return radio?.can_send === false;
}
