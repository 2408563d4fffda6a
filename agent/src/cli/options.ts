// The command line of `sms-gateway-agent`, read and checked. Every flag is validated here, with
// an error that says what is wrong and what is expected; nothing half-read reaches the agent.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { parsePairingUrl, type Pairing } from '../pairing.ts';
import { DEFAULT_POLL_INTERVAL_MS } from '../radio/termux/termux-radio.ts';

export type BackendName = 'termux' | 'modem' | 'simulate';
export const BACKENDS: readonly BackendName[] = ['termux', 'modem', 'simulate'];

/** One device run by this process: its credentials, its radio and where it keeps its journal. */
export interface DeviceConfig {
  pairing: Pairing;
  /** The pairing URL as given, saved in the state directory for the next start. */
  pairingUrl: string;
  backend: BackendName;
  /** The journal's directory, this device's own. */
  stateDir: string;
  /** PEM certificates to trust for TLS instead of the system's: --ca, else what an earlier --ca saved in the state directory. */
  ca?: string;
  modem?: { serial: string; baudRate?: number; pin?: string; smsc?: string };
  termux?: { pollIntervalMs?: number };
}

export interface AgentCommand {
  help: boolean;
  version: boolean;
  devices: DeviceConfig[];
  /** Certificates to trust for TLS instead of the system's (PEM), from --ca. */
  ca: string | undefined;
  heartbeatIntervalMs: number;
  logFormat: 'text' | 'json';
  /** The end-to-end passphrase (SMS_GATEWAY_AGENT_PASSPHRASE): encrypted SMS are decrypted with it. Never saved. */
  passphrase: string | undefined;
  /** With a passphrase: received SMS are forwarded encrypted (SMS_GATEWAY_AGENT_ENCRYPT_INCOMING=1). */
  encryptIncoming: boolean;
}

export class UsageError extends Error {}

export const HELP = `sms-gateway-agent: sends the SMS gateway's SMS through this phone or modem

Usage:
  sms-gateway-agent --pairing '<pairing URL>' --backend termux|modem|simulate [options]
  sms-gateway-agent [--state-dir DIR]                 again, as paired before
  sms-gateway-agent --config devices.json            several devices in one process

The pairing URL comes from the gateway: the QR code the control panel shows once, when it
registers the device or gives it a new token, the pairing_url of POST /api/ext/v1/devices, or
\`sms-gateway devices register\`. It holds the
device's token: treat it as a password. It can also be given in the environment as
SMS_GATEWAY_AGENT_PAIRING, which keeps it out of the process list. The first run saves it, with
the backend and its flags, in the state directory (readable by you only): later runs need no
flags, or only --state-dir when several devices are saved.

Backends:
  termux     an Android phone in Termux with the Termux:API app and package
  modem      a GSM/LTE modem on a serial port, AT commands in PDU mode
  simulate   no radio: every SMS is "sent" and "delivered" (to try the gateway out)

Options:
  --pairing URL            the pairing URL (or SMS_GATEWAY_AGENT_PAIRING)
  --backend NAME           termux, modem or simulate
  --state-dir DIR          where the journal is kept (default ~/.sms-gateway-agent/<device id>)
  --serial PATH            modem: the serial port, such as /dev/ttyUSB2
  --baud N                 modem: the port's speed (default 115200)
  --pin PIN                modem: the SIM's PIN, when it asks for one (or SMS_GATEWAY_AGENT_PIN;
                           never saved: give it at every start)
  --smsc NUMBER            modem: the SMS centre, when the SIM does not hold it
  --poll-interval SECONDS  termux: how often received SMS and calls are read (default ${DEFAULT_POLL_INTERVAL_MS / 1000})
  --ca FILE                PEM certificates to trust for TLS instead of the system's CAs (a
                           private CA); saved in the state directory for later starts. A
                           pairing URL with a pin (tls=1&pin=...) needs none
  --heartbeat-interval SECONDS   between heartbeats (default 300)
  --log-format text|json   (default text)
  --config FILE            a JSON file naming several devices (see the agent's docs)

Environment: SMS_GATEWAY_AGENT_PASSPHRASE, the end-to-end passphrase shared with the clients
(docs/encryption.md): encrypted SMS are decrypted with it just before sending (never saved: give it
at every start); with SMS_GATEWAY_AGENT_ENCRYPT_INCOMING=1 received SMS are forwarded encrypted too.
  --help, --version

Docs: docs/agent-termux.md (a phone), docs/agent-modem.md (a modem), docs/devices.md (the protocol).
`;

export function readCommand(argv: string[], env: NodeJS.ProcessEnv, home: string): AgentCommand {
  let parsed: ReturnType<typeof parseFlags>;
  try {
    parsed = parseFlags(argv);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values } = parsed;
  const command: AgentCommand = {
    help: values.help ?? false,
    version: values.version ?? false,
    devices: [],
    ca: values.ca === undefined ? undefined : certificates(readText(values.ca, '--ca'), `--ca ${values.ca}`),
    heartbeatIntervalMs: seconds(values['heartbeat-interval'], '--heartbeat-interval', 300, 10, 3600) * 1000,
    logFormat: oneOf(values['log-format'] ?? 'text', ['text', 'json'] as const, '--log-format'),
    ...endToEnd(env),
  };
  if (command.help || command.version) return command;
  if (values.config !== undefined) {
    for (const flag of ['pairing', 'backend', 'serial', 'state-dir'] as const) {
      if (values[flag] !== undefined) throw new UsageError(`--${flag} and --config do not go together: name each device in the file`);
    }
    command.devices = withCa(readConfigFile(values.config, home), command.ca);
    return command;
  }
  const pairingText = values.pairing ?? env.SMS_GATEWAY_AGENT_PAIRING;
  // Paired before: the state directory remembers the device; flags given now win.
  const saved = pairingText ? undefined : savedDevice(values['state-dir'], home);
  if (!pairingText && !saved) throw new UsageError('a pairing URL is needed: --pairing \'smsgw://...\' (from the control panel or the API); after the first run the state directory remembers it');
  const backend = values.backend ?? saved?.backend;
  if (!backend) throw new UsageError(`--backend is needed: ${BACKENDS.join(', ')}`);
  const flags: RawDevice = {
    pairing: pairingText ?? saved?.pairing,
    backend,
    stateDir: values['state-dir'] ?? saved?.stateDir,
    serial: values.serial,
    baud: values.baud,
    pin: values.pin ?? env.SMS_GATEWAY_AGENT_PIN,
    smsc: values.smsc,
    pollInterval: values['poll-interval'],
  };
  // What was saved for the same backend fills what the flags leave out.
  if (saved && saved.backend === backend) for (const key of ['serial', 'baud', 'smsc', 'pollInterval'] as const) flags[key] ??= saved[key];
  command.devices = withCa([device(flags, home, '')], command.ca);
  return command;
}

function parseFlags(argv: string[]) {
  return parseArgs({
    args: argv,
    strict: true,
    allowPositionals: false,
    options: {
      help: { type: 'boolean', short: 'h' },
      version: { type: 'boolean' },
      pairing: { type: 'string' },
      backend: { type: 'string' },
      'state-dir': { type: 'string' },
      serial: { type: 'string' },
      baud: { type: 'string' },
      pin: { type: 'string' },
      smsc: { type: 'string' },
      'poll-interval': { type: 'string' },
      ca: { type: 'string' },
      'heartbeat-interval': { type: 'string' },
      'log-format': { type: 'string' },
      config: { type: 'string' },
    },
  });
}

/** The file in a state directory that remembers how the device was started (its pairing URL included: mode 0600). */
export const SAVED_DEVICE_FILE = 'device.json';

/**
 * The device saved in `stateDir`, or, without one, in ~/.sms-gateway-agent itself or the only
 * state directory under it: a start without flags (the boot script) finds the device whether it
 * was paired with the default state directory or with --state-dir ~/.sms-gateway-agent. Several
 * there: the user must say which.
 */
function savedDevice(stateDir: string | undefined, home: string): (RawDevice & { stateDir: string }) | undefined {
  let dirs: string[];
  if (stateDir !== undefined) {
    dirs = [stateDir];
  } else {
    const root = join(home, '.sms-gateway-agent');
    dirs = existsSync(root) ? [root, ...readdirSync(root).map((name) => join(root, name))] : [];
  }
  const found = dirs.filter((dir) => existsSync(join(dir, SAVED_DEVICE_FILE)));
  if (found.length > 1) throw new UsageError(`several paired devices are saved under ${join(home, '.sms-gateway-agent')}: name one with --state-dir`);
  if (found.length === 0) return undefined;
  const dir = found[0]!;
  let value: unknown;
  try {
    value = JSON.parse(readText(join(dir, SAVED_DEVICE_FILE), 'the saved device'));
  } catch (error) {
    throw error instanceof UsageError ? error : new UsageError(`${join(dir, SAVED_DEVICE_FILE)} is damaged: pair again with --pairing`);
  }
  if (typeof value !== 'object' || value === null) throw new UsageError(`${join(dir, SAVED_DEVICE_FILE)} is damaged: pair again with --pairing`);
  return { ...(value as RawDevice), stateDir: dir };
}

/** What is saved for the next start: the raw values, as the flags gave them. */
export function savedForm(config: DeviceConfig, pairingUrl: string): Record<string, unknown> {
  return {
    pairing: pairingUrl,
    backend: config.backend,
    // The SIM's PIN is never written down: it comes with each start (--pin or SMS_GATEWAY_AGENT_PIN).
    ...(config.modem ? { serial: config.modem.serial, baud: config.modem.baudRate, smsc: config.modem.smsc } : {}),
    ...(config.termux?.pollIntervalMs ? { pollInterval: config.termux.pollIntervalMs / 1000 } : {}),
    // The certificates themselves, not the file's path: a boot script may start before the
    // storage that held the file is mounted, or after the file was cleaned away.
    ...(config.ca ? { ca: config.ca } : {}),
  };
}

/** --ca for every device; without it, the CA each one's state directory kept from an earlier --ca. */
function withCa(devices: DeviceConfig[], ca: string | undefined): DeviceConfig[] {
  for (const device of devices) {
    const trusted = ca ?? savedCa(device.stateDir);
    if (trusted) device.ca = trusted;
  }
  return devices;
}

function savedCa(stateDir: string): string | undefined {
  const file = join(stateDir, SAVED_DEVICE_FILE);
  if (!existsSync(file)) return undefined;
  let saved: unknown;
  try {
    saved = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    // A damaged file is refused where the pairing is read from it, or overwritten by this start.
    return undefined;
  }
  const ca = (saved as { ca?: unknown } | null)?.ca;
  return ca === undefined ? undefined : certificates(ca, `the CA saved in ${file}`);
}

/** PEM certificates, as --ca gives them and the state directory keeps them. */
function certificates(value: unknown, what: string): string {
  if (typeof value !== 'string' || !value.includes('-----BEGIN CERTIFICATE-----')) {
    throw new UsageError(`${what} holds no PEM certificate (a "-----BEGIN CERTIFICATE-----" block)`);
  }
  return value;
}

interface RawDevice {
  pairing: unknown;
  backend: unknown;
  stateDir?: unknown;
  serial?: unknown;
  baud?: unknown;
  pin?: unknown;
  smsc?: unknown;
  pollInterval?: unknown;
}

/** One device from flags or from a config file entry (`where` names the entry in errors). */
function device(raw: RawDevice, home: string, where: string): DeviceConfig {
  if (typeof raw.pairing !== 'string') throw new UsageError(`${where}the pairing URL is missing`);
  let pairing: Pairing;
  try {
    pairing = parsePairingUrl(raw.pairing);
  } catch (error) {
    throw new UsageError(`${where}${(error as Error).message}`);
  }
  const backend = oneOf(raw.backend, BACKENDS, `${where}backend`);
  const stateDir = raw.stateDir === undefined ? `${home}/.sms-gateway-agent/${pairing.deviceId}` : text(raw.stateDir, `${where}state directory`);
  const config: DeviceConfig = { pairing, pairingUrl: raw.pairing, backend, stateDir };
  if (backend === 'modem') {
    if (raw.serial === undefined) throw new UsageError(`${where}the modem backend needs the serial port: --serial /dev/ttyUSB0`);
    config.modem = {
      serial: text(raw.serial, `${where}serial port`),
      ...(raw.baud !== undefined ? { baudRate: integer(raw.baud, `${where}baud`, 300, 4_000_000) } : {}),
      ...(raw.pin !== undefined ? { pin: pin(raw.pin, `${where}PIN`) } : {}),
      ...(raw.smsc !== undefined ? { smsc: phone(raw.smsc, `${where}SMS centre`) } : {}),
    };
  } else {
    for (const [flag, value] of [['serial', raw.serial], ['baud', raw.baud], ['pin', raw.pin], ['smsc', raw.smsc]] as const) {
      if (value !== undefined) throw new UsageError(`${where}--${flag} is for the modem backend only`);
    }
  }
  if (raw.pollInterval !== undefined && backend !== 'termux') throw new UsageError(`${where}--poll-interval is for the termux backend only`);
  if (backend === 'termux') config.termux = raw.pollInterval === undefined ? {} : { pollIntervalMs: seconds(raw.pollInterval, `${where}poll interval`, DEFAULT_POLL_INTERVAL_MS / 1000, 1, 3600) * 1000 };
  return config;
}

/**
 * A config file: {"devices": [{"pairing": "smsgw://...", "backend": "modem", "serial": "/dev/ttyUSB0",
 * "pin": "1234", "stateDir": "..."}, ...]}. Each device needs a state directory of its own; two
 * entries for the same device id would take over from each other, and are refused.
 */
function readConfigFile(path: string, home: string): DeviceConfig[] {
  let value: unknown;
  try {
    value = JSON.parse(readText(path, '--config'));
  } catch (error) {
    throw error instanceof UsageError ? error : new UsageError(`--config ${path} is not JSON: ${(error as Error).message}`);
  }
  const list = (value as { devices?: unknown } | null)?.devices;
  if (!Array.isArray(list) || list.length === 0) throw new UsageError(`--config ${path} must hold {"devices": [ ... ]} with at least one device`);
  const devices = list.map((entry: unknown, index) => {
    if (typeof entry !== 'object' || entry === null) throw new UsageError(`devices[${index}] in ${path} is not an object`);
    return device(entry as RawDevice, home, `devices[${index}] in ${path}: `);
  });
  const seen = new Set<string>();
  for (const entry of devices) {
    if (seen.has(entry.pairing.deviceId)) throw new UsageError(`${path} names device ${entry.pairing.deviceId} twice: one process per device`);
    seen.add(entry.pairing.deviceId);
  }
  const dirs = new Set(devices.map((entry) => entry.stateDir));
  if (dirs.size !== devices.length) throw new UsageError(`${path} gives two devices the same state directory`);
  return devices;
}

function readText(path: string, flag: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new UsageError(`${flag} ${path}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}`);
  }
}

function text(value: unknown, what: string): string {
  if (typeof value !== 'string' || value.trim() === '') throw new UsageError(`${what} must be a non-empty string`);
  return value;
}

function oneOf<T extends string>(value: unknown, allowed: readonly T[], what: string): T {
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) throw new UsageError(`${what} must be one of ${allowed.join(', ')}`);
  return value as T;
}

function integer(value: unknown, what: string, min: number, max: number): number {
  const number = typeof value === 'number' ? value : typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : NaN;
  if (!Number.isInteger(number) || number < min || number > max) throw new UsageError(`${what} must be a whole number from ${min} to ${max}`);
  return number;
}

function seconds(value: unknown, what: string, fallback: number, min: number, max: number): number {
  return value === undefined ? fallback : integer(value, `${what} (seconds)`, min, max);
}

function pin(value: unknown, what: string): string {
  const textValue = typeof value === 'number' ? String(value) : value;
  if (typeof textValue !== 'string' || !/^\d{4,8}$/.test(textValue)) throw new UsageError(`${what} must be 4 to 8 digits`);
  return textValue;
}

function phone(value: unknown, what: string): string {
  if (typeof value !== 'string' || !/^\+?\d{3,20}$/.test(value)) throw new UsageError(`${what} must be a phone number, such as +447785016005`);
  return value;
}

/** The end-to-end passphrase comes from the environment only, like the PIN, and is never saved. */
function endToEnd(env: NodeJS.ProcessEnv): { passphrase: string | undefined; encryptIncoming: boolean } {
  const passphrase = env.SMS_GATEWAY_AGENT_PASSPHRASE;
  if (passphrase !== undefined && (passphrase.length === 0 || passphrase.length > 1024)) {
    throw new UsageError('SMS_GATEWAY_AGENT_PASSPHRASE must be 1-1024 characters');
  }
  const encryptIncoming = ['1', 'true', 'yes'].includes((env.SMS_GATEWAY_AGENT_ENCRYPT_INCOMING ?? '').toLowerCase());
  if (encryptIncoming && passphrase === undefined) throw new UsageError('SMS_GATEWAY_AGENT_ENCRYPT_INCOMING needs SMS_GATEWAY_AGENT_PASSPHRASE');
  return { passphrase, encryptIncoming };
}
