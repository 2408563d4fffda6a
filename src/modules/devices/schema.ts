import { Type } from '@sinclair/typebox';
import { PageOf, PageQuery } from '../../common/page-schema.ts';
import { DeviceCapabilities } from './capabilities.ts';
import { RADIO_PROBLEMS, RADIO_PROBLEM_PATTERN } from './radio.ts';
import { SIM_SLOTS } from './sim-numbers.ts';
import { DEVICE_GROUP_PATTERN, DEVICE_GROUP_RULE } from './group-name.ts';
import { INSTALLER_NOT_DOWNLOADED } from './install-command.ts';

const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601, UTC' });

const LimitValue = Type.Union([Type.Integer({ minimum: 1, maximum: 1_000_000 }), Type.Null()], { description: 'null: no limit' });

export const Limits = Type.Object(
  {
    per_minute: LimitValue,
    per_hour: LimitValue,
    per_day: LimitValue,
  },
  { additionalProperties: false, description: 'sends handed to the device in the last minute / hour / day (rolling); the gateway never hands it more' },
);

export const QuietHours = Type.Object(
  {
    from: Type.String({ pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$', description: 'HH:MM local time, start (inclusive)' }),
    to: Type.String({ pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$', description: 'HH:MM local time, end (exclusive); earlier than from for a window across midnight' }),
    timezone: Type.String({ minLength: 1, maxLength: 64, description: 'IANA time zone name, such as Europe/Berlin' }),
  },
  { additionalProperties: false, description: 'no sends inside this daily window' },
);

export const SendJitter = Type.Object(
  {
    min_seconds: Type.Integer({ minimum: 0, maximum: 3600, description: 'shortest pause, seconds' }),
    max_seconds: Type.Integer({ minimum: 0, maximum: 3600, description: 'longest pause, seconds; at least min_seconds' }),
  },
  { additionalProperties: false, description: 'a random pause between two tasks handed to the device, drawn anew each time' },
);

const MaxSendAttempts = Type.Union([Type.Integer({ minimum: 1, maximum: 5 }), Type.Null()], {
  description: 'attempts a send that fails with a retryable error gets (on another SIM or phone); null: the account\'s default (2)',
});

const Pacing = {
  send_window: Type.Integer({ minimum: 1, maximum: 50, description: 'tasks the device may hold in flight at once (handed out, not yet sent)' }),
  limits: Limits,
  quiet_hours: Type.Union([QuietHours, Type.Null()], { description: 'a daily window without sends; null: none' }),
  send_jitter: Type.Union([SendJitter, Type.Null()], {
    description: 'a random pause between two tasks handed to this device, on top of its limits, so that its sends do not come at a machine\'s regular pace; null: none',
  }),
  max_send_attempts: MaxSendAttempts,
};

const SimCard = Type.Object(
  {
    index: Type.Integer({ minimum: 0, description: 'SIM slot, from 0 (as selected_sim and an SMS\'s sim name it)' }),
    name_operator: Type.String(),
    phone_number: Type.Union([Type.String(), Type.Null()], {
      description:
        'the SIM\'s own number, E.164: the owner\'s (sim_numbers) when set, else the one the phone reported in its last heartbeat; ' +
        'null when neither is known',
    }),
    phone_number_source: Type.Union([Type.Literal('owner'), Type.Literal('device'), Type.Null()], {
      description: 'where phone_number comes from: owner (set with the device\'s settings), device (the phone reported it); null with no number',
    }),
  },
  { additionalProperties: false },
);

/** The owner's numbers by SIM slot, "0"-"7": a slot left out has none. */
const OwnerSimNumbers = Type.Object(
  Object.fromEntries(SIM_SLOTS.map((slot) => [slot, Type.Optional(Type.String({ description: `SIM slot ${slot}'s number, E.164` }))])),
  {
    additionalProperties: false,
    description:
      'the numbers the owner set per SIM slot (PATCH settings sim_numbers), E.164; they win over what the phone reports. ' +
      'sim_cards shows each SIM\'s effective number',
  },
);

/** A change of the owner's numbers: a slot left out stays as it is, null clears it. */
const SimNumbersPatch = Type.Object(
  Object.fromEntries(
    SIM_SLOTS.map((slot) => [
      slot,
      Type.Optional(Type.Union([Type.String({ maxLength: 40 }), Type.Null()], { description: `SIM slot ${slot}'s number; null clears the owner's` })),
    ]),
  ),
  {
    additionalProperties: false,
    description:
      'the SIMs\' own numbers, by SIM slot from 0 ("0"-"7"), as the owner knows them: they win over the number the phone reports. ' +
      'E.164, or national in DEFAULT_PHONE_REGION (stored in E.164); null clears the owner\'s number, and the phone\'s shows again. ' +
      'Slots not sent stay unchanged; a number for a SIM the phone has not reported is kept and shown once it does',
  },
);

const SimLimitValue = Type.Union([Type.Integer({ minimum: 1, maximum: 1_000_000 }), Type.Null()], { description: 'null: no such limit' });

/** One SIM's carrier limits (docs/delivery.md, "Limits of a SIM"). */
const SimLimit = Type.Object(
  {
    per_day: SimLimitValue,
    per_month: SimLimitValue,
    recipients_per_month: SimLimitValue,
  },
  {
    additionalProperties: false,
    description:
      'per_day: tasks handed to this SIM in the last 24 hours (rolling); per_month: in the calendar month (UTC); ' +
      'recipients_per_month: distinct recipients it sent to in the calendar month (UTC), a recipient already counted counting no more',
  },
);

const SimLimitsView = Type.Object(
  Object.fromEntries(SIM_SLOTS.map((slot) => [slot, Type.Optional(SimLimit)])),
  { additionalProperties: false, description: 'the limits carriers put on each SIM, by slot ("0"-"7"); a slot left out has none' },
);

const SimLimitsPatch = Type.Object(
  Object.fromEntries(
    SIM_SLOTS.map((slot) => [
      slot,
      Type.Optional(
        Type.Union(
          [
            Type.Object(
              { per_day: Type.Optional(SimLimitValue), per_month: Type.Optional(SimLimitValue), recipients_per_month: Type.Optional(SimLimitValue) },
              { additionalProperties: false },
            ),
            Type.Null(),
          ],
          { description: `SIM slot ${slot}'s limits: they replace the slot's (a limit left out or null: none); null removes them` },
        ),
      ),
    ]),
  ),
  {
    additionalProperties: false,
    description:
      'the limits carriers put on each SIM, by slot from 0 ("0"-"7"): per_day (rolling 24 hours), per_month and ' +
      'recipients_per_month (calendar month, UTC), each 1-1,000,000 or null. A SIM at a limit is handed no task it would count against; ' +
      'slots not sent stay unchanged',
  },
);

// A device as the Extended API shows it.
export const DeviceView = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    type: Type.String({ description: 'device kind, such as android' }),
    name: Type.String({ description: 'name the device reports about itself' }),
    name_custom: Type.String({ description: 'name chosen by the user; the system name when none was chosen' }),
    group: Type.Union([Type.String(), Type.Null()], {
      description: 'the device group it is in: a route whose target is "group:<name>" keeps an SMS for the phones of that group only (docs/routes.md). null: in no group',
    }),
    is_online: Type.Boolean({
      description: 'connected and active within DEVICE_OFFLINE_AFTER; only an online device is handed SMS (a silent one gets none until it speaks again)',
    }),
    is_charging: Type.Boolean(),
    battery_level: Type.Union([Type.Integer({ minimum: 0, maximum: 100 }), Type.Null()], {
      description:
        'battery charge, percent. null until the phone\'s first heartbeat reports it (a device just registered, or ' +
        'one that has never connected): the gateway does not guess a level',
    }),
    signal_percent: Type.Union([Type.Integer({ minimum: 0, maximum: 100 }), Type.Null()], {
      description:
        'the radio\'s signal strength, percent, as the last heartbeat reported it. null when unknown: before the first ' +
        'heartbeat, or when the last one did not report it (the gateway keeps no older reading, which could mislead)',
    }),
    can_send_sms: Type.Boolean(),
    selected_sim: Type.Integer({ minimum: -2, maximum: 2 }),
    notify_low_battery: Type.Boolean(),
    forward_incoming_sms: Type.Boolean({
      description:
        'whether the phone forwards the SMS it receives (replies, STOP opt-outs) to the gateway. Off: the phone keeps them ' +
        '(incoming_held counts them) and the gateway stores none; switched on, the phone forwards those it kept, oldest first. ' +
        'true for devices registered since this default was introduced',
    }),
    incoming_held: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], {
      description:
        'received SMS the phone keeps, not forwarded, while forward_incoming_sms is off, as its last heartbeat said; ' +
        'they are forwarded once it is switched on. null when the phone does not say (an older agent, or no heartbeat yet)',
    }),
    record_calls: Type.Boolean(),
    capabilities: Type.Union([DeviceCapabilities, Type.Null()], {
      description:
        'what the device can be given, as its last heartbeat said: pool MMS, data SMS and encrypted SMS go only to devices that can, ' +
        'and a send or USSD request naming a device that cannot is refused (409 device_not_capable). null: the phone does not say ' +
        '(an older app, or no heartbeat yet): it is taken to do everything, as before devices said',
    }),
    radio: Type.Union(
      [
        Type.Object(
          {
            can_send: Type.Boolean({ description: 'whether the radio could send, as the agent last found it' }),
            problem: Type.Union([Type.String({ pattern: RADIO_PROBLEM_PATTERN }), Type.Null()], {
              description: `what is wrong with it: ${RADIO_PROBLEMS.join(', ')} (docs/devices.md), or another a newer agent names; null: nothing`,
            }),
            detail: Type.Union([Type.String(), Type.Null()], { description: "the radio's own words for the problem; null: none given" }),
            reported_at: Timestamp,
          },
          { additionalProperties: false },
        ),
        Type.Null(),
      ],
      {
        description:
          'what the device\'s agent said of its radio in its last heartbeat. can_send false: the device is handed no new SMS ' +
          '(SMS named for it wait, pool SMS go to other devices; queue.blocked_by is radio) until a heartbeat says it can send again. ' +
          'null: the agent does not say (an older one, or no heartbeat yet), and the device is handed work as before',
      },
    ),
    sim_cards: Type.Array(SimCard, { description: 'the SIMs the phone reported in its last heartbeat, each with its number' }),
    sim_numbers: OwnerSimNumbers,
    sim_limits: SimLimitsView,
    ...Pacing,
    paused_until: Type.Union([Timestamp, Type.Null()], {
      description:
        'the circuit breaker paused the device after failed sends in a row; it takes no tasks until then (a past time: the last pause). ' +
        'null: no pause to show (never paused, or the pause was ended with paused: false)',
    }),
    paused_reason: Type.Union([Type.String(), Type.Null()], { description: 'why the circuit breaker paused it; null when paused_until is null' }),
    created_at: Timestamp,
    updated_at: Timestamp,
    last_seen_at: Type.Union([Timestamp, Type.Null()], {
      description: 'when the device last reported anything (a heartbeat, a status); null until it first does',
    }),
  },
  { additionalProperties: false },
);

const BLOCKERS = [
  'cannot_send',
  'radio',
  'degraded',
  'paused',
  'quiet_hours',
  'jitter',
  'window',
  'per_minute',
  'per_hour',
  'per_day',
  'sim_per_day',
  'sim_per_month',
  'sim_recipients_per_month',
] as const;

export const DeviceQueue = Type.Object(
  {
    in_flight: Type.Integer({ description: 'tasks handed to the device and not yet sent or failed' }),
    waiting: Type.Integer({ description: 'SMS whose client named this device, waiting for room on it' }),
    sent_last_minute: Type.Integer({ description: 'tasks handed to the device in the last 60 seconds' }),
    sent_last_hour: Type.Integer(),
    sent_last_day: Type.Integer(),
    blocked_by: Type.Union([...BLOCKERS.map((name) => Type.Literal(name)), Type.Null()], {
      description:
        'why the device may take no task now (the first reason found); null when it may. degraded: every SIM it reported is ' +
        'degraded (fault send), it takes only canary SMS; sim_per_day, sim_per_month, sim_recipients_per_month: every SIM that may ' +
        'send is at that limit (sim_limits)',
    }),
    paused_sims: Type.Array(
      Type.Object(
        {
          sim_slot: Type.Integer({ minimum: 0 }),
          paused_until: Timestamp,
          reason: Type.Union([Type.String(), Type.Null()], { description: 'why the SIM breaker paused it; null only for a pause recorded without one' }),
        },
        { additionalProperties: false },
      ),
      { description: 'SIMs the SIM breaker paused after failed sends in a row with the same error: no task names them until paused_until' },
    ),
  },
  { additionalProperties: false },
);

export const DeviceDetail = Type.Composite([DeviceView, Type.Object({ queue: DeviceQueue })], { additionalProperties: false });

export const DeviceIdParams = Type.Object({ id: Type.String({ format: 'uuid', description: 'device id (UUID)' }) });

// Every field optional; fields not sent stay unchanged.
export const DeviceSettingsPatch = Type.Object(
  {
    can_send_sms: Type.Optional(
      Type.Boolean({
        description:
          'allow or forbid sending through the device. false fails nothing: tasks its phone has not acknowledged are taken back (revoked on the phone), SMS named for it waiting for it, pending, until it is true again, the others going to another device; tasks its phone acknowledged stay its own',
      }),
    ),
    selected_sim: Type.Optional(
      Type.Integer({ minimum: -2, maximum: 2, description: '-2 system default, -1 random, 0-2 slot' }),
    ),
    notify_low_battery: Type.Optional(Type.Boolean()),
    forward_incoming_sms: Type.Optional(Type.Boolean()),
    record_calls: Type.Optional(Type.Boolean()),
    name_custom: Type.Optional(
      Type.String({ 'x-maxCharacters': 100, description: 'up to 100 characters; "" resets to the system name' }),
    ),
    send_window: Type.Optional(Pacing.send_window),
    limits: Type.Optional(
      Type.Object(
        { per_minute: Type.Optional(LimitValue), per_hour: Type.Optional(LimitValue), per_day: Type.Optional(LimitValue) },
        { additionalProperties: false, description: 'limits not sent stay unchanged; null removes one' },
      ),
    ),
    quiet_hours: Type.Optional(Type.Union([QuietHours, Type.Null()], { description: 'null removes the quiet hours' })),
    send_jitter: Type.Optional(Type.Union([SendJitter, Type.Null()], { description: 'min_seconds <= max_seconds, each 0-3600; null removes it' })),
    max_send_attempts: Type.Optional(MaxSendAttempts),
    paused: Type.Optional(Type.Literal(false, { description: 'false: end a circuit-breaker pause now, the device\'s and its SIMs\'' })),
    sim_numbers: Type.Optional(SimNumbersPatch),
    sim_limits: Type.Optional(SimLimitsPatch),
    group: Type.Optional(
      Type.Union([Type.String({ pattern: DEVICE_GROUP_PATTERN, description: DEVICE_GROUP_RULE }), Type.Null()], {
        description: `put the device in this group (${DEVICE_GROUP_RULE}), for routes that target "group:<name>"; null takes it out of its group`,
      }),
    ),
  },
  { additionalProperties: false },
);

export const DeviceListQuery = Type.Object({ ...PageQuery }, { additionalProperties: false });
export const DeviceList = PageOf(DeviceView);

export const RegisterDeviceBody = Type.Object(
  { name: Type.String({ minLength: 1, 'x-maxCharacters': 100, description: 'system name until the device reports its own' }) },
  { additionalProperties: false },
);

export const DeviceRegistration = Type.Object({
  device: DeviceView,
  credentials: Type.Object({
    client_id: Type.String({ description: 'MQTT client id: the device id' }),
    username: Type.String({ description: 'MQTT username: the device id' }),
    password: Type.String({ description: 'MQTT password: the device token. Shown once; only its hash is stored.' }),
  }),
  broker: Type.Object({
    mqtt_port: Type.Integer({ description: 'the port the broker listens on for MQTT over TCP, on this gateway (MQTT over TLS, MQTTS_PORT, when the gateway has TLS_CERT); behind a proxy phones may reach it on another (port)' }),
    websocket_path: Type.String({ description: 'MQTT over WebSocket on the gateway\'s HTTP port' }),
    host: Type.String({ description: 'the host phones connect to: MQTT_PUBLIC_URL\'s, else PUBLIC_URL\'s, else the one this request came to. An IPv6 address without brackets' }),
    port: Type.Integer({ minimum: 1, maximum: 65535, description: 'the port phones connect to: MQTT_PUBLIC_URL\'s, else mqtt_port' }),
    tls: Type.Boolean({ description: 'true: MQTT over TLS on that port (MQTT_PUBLIC_URL is mqtts://, or the gateway has TLS_CERT and no MQTT_PUBLIC_URL)' }),
    url: Type.String({ description: 'the same as one URL: mqtt://host:port or mqtts://host:port' }),
  }),
  pairing_url: Type.String({
    description:
      'everything the device needs in one URL, for a QR code or the device agent (sms-gateway-agent --pairing): ' +
      'smsgw://host:port?v=1&device=<id>&token=<token>[&tls=1][&api=<HTTP base>], values percent-encoded. ' +
      'It holds the token: treat it as a password; it is shown once too',
  }),
  install_command: Type.Optional(
    Type.String({
      description:
        'one shell line to paste into Termux on the Android phone that is to send the SMS (not on the gateway\'s machine; ' +
        'docs/agent-termux.md, section 3). Its shape: history -d -1 2>/dev/null; (f=$(mktemp) && trap \'rm -f "$f"\' EXIT && ' +
        'curl -fsSL -o "$f" \'<gateway>/agent/install.sh\' || { echo \'...\' >&2; exit 1; }; sh "$f" \'<pairing_url>\'). ' +
        'It takes itself out of bash\'s history (it holds the token), downloads the installer (GET /agent/install.sh) to a ' +
        'temporary file and runs it with pairing_url as its argument, in a subshell, so the Termux session stays open. When the ' +
        `download fails it prints curl's error and "${INSTALLER_NOT_DOWNLOADED}", installs nothing and exits 1; ` +
        'otherwise its exit status is the installer\'s. The installer installs Node.js and termux-api with pkg when missing and the ' +
        'device agent from this gateway (GET /agent/sms-gateway-agent.tgz), pairs it with pairing_url, starts it and sets up ' +
        'Termux:Boot. It carries pairing_url, so the same care applies; shown once too. Absent when the gateway knows no HTTP ' +
        'address of its own (no PUBLIC_URL and no request origin)',
    }),
  ),
});
