// `sms-gateway simulate`: runs simulated devices against a gateway, for demos, tests and load.
import { accessSync, constants, readFileSync, statSync } from 'node:fs';
import { connect } from 'node:net';
import { dirname } from 'node:path';
import { Fleet, type GivenDevice } from '../../simulator/fleet.ts';
import { apiKey, givenDevices, pairingFile, pairingFlags } from '../simulate-devices.ts';
import { ConfigError, loadConfig } from '../../config.ts';
import { CliError, type Output } from '../output.ts';
import { fractionFlag, parseFlags, wholeNumberFlag } from '../flags.ts';
import { passphraseFrom } from '../passphrase.ts';
import { makeDirectory } from '../../common/make-directory.ts';

export const USAGE = `usage: sms-gateway simulate --devices N | --pairing-file FILE | --pairing URL... | --device ID --token TOKEN [options]
Runs simulated phones: each "sends" the SMS it is given and reports it sent and delivered, without
a radio. Each also answers USSD (POST /api/ext/v1/devices/{id}/ussd): *100# with a balance, *111#
with a menu that asks for a reply; other codes fail. An SMS sent to the number of another phone of
the same run arrives there as a received SMS (canary rounds pass).
  --devices N            register N simulated devices (1-20000) through the API, or reuse the ones
                         --state remembers; needs an API key with devices:write
  --pairing URL          run the device this pairing URL names (smsgw://host:port?v=1&device=...&token=...,
                         as devices register, the panel or the API give it); repeat for several.
                         Its broker is the URL's host and port unless --mqtt is given. No API key needed.
                         It holds the token, which the process list shows every user: prefer --pairing-file
  --pairing-file FILE    run the devices of the pairing URLs in FILE, one a line (- reads them from stdin)
  --device ID --token T  run this registered device with its token (MQTT password). No API key needed;
                         the token is visible in the process list too
  --api URL              gateway HTTP base URL (default http://127.0.0.1:$PORT, PORT defaulting to 3000)
  --mqtt URL             broker URL (default mqtt://127.0.0.1:$MQTT_PORT, MQTT_PORT defaulting to 1883;
                         ws://host:port/mqtt works too)
  --key-file PATH        read the API key from this file (its first line)
  --key KEY              the API key itself; visible to other users in the process list, so prefer
                         the environment variable SMS_GATEWAY_KEY or --key-file
  --state FILE           remember registered devices here and reuse them (default ./data/simulator-devices.json)
  --delay MS             wait before each report (default 200)
  --fail-send-rate R     fraction 0-1 of tasks that fail to send, with no error code: final, not retried (default 0)
  --fail-sim SLOT:CODE   every send from this SIM slot fails with this error code (no_service, no_credit,
                         radio_off, generic_failure, null_pdu are retried elsewhere; invalid_number,
                         blocked, message_too_long are not); repeat for several slots
  --sims N               SIM cards each device reports, slots 0..N-1 (1-3; default 1, or 2 with --fail-sim)
  --undelivered-rate R   fraction 0-1 of sent SMS reported undelivered (default 0)
  --incoming-every S     every S seconds one device forwards a received SMS (default: never)
  --calls-every S        every S seconds one device reports a call (incoming, outgoing or missed);
                         with its record_calls setting on, it uploads a short WAV recording (default: never)
  --mms-every S          every S seconds one device receives an MMS (a small image and a vCard): reported on
                         its mms topic, the parts uploaded over HTTP (kept while forward_incoming_sms is on)
                         (default: never). MMS tasks are always handled: the parts fetched over HTTP, then sent
  --mms                  receive MMS too: as --mms-every 30, unless --mms-every gives another interval
  --mms-fetch HOW        whole (default) or ranges: fetch each MMS part in one GET or in two Range requests
  --duration S           stop after S seconds (default: run until Ctrl-C)
  --passphrase-file PATH the end-to-end passphrase (its first line): devices decrypt encrypted SMS with
                         it, and fail those it does not open with decryption_failed (docs/encryption.md).
                         Without one, every encrypted SMS fails so
  --passphrase P         the passphrase itself; visible in the process list, so prefer
                         SMS_GATEWAY_PASSPHRASE or --passphrase-file
  --encrypt-incoming     with a passphrase: received SMS (--incoming-every) are forwarded encrypted
  --json                 when the run ends, print the devices run and the counts of tasks and reports
                         as one JSON document on stdout; the progress lines stay text, on stderr
environment: SMS_GATEWAY_KEY (the API key, when neither --key nor --key-file is given),
             SMS_GATEWAY_PASSPHRASE (the passphrase, when neither flag gives it), PORT, MQTT_PORT`;

export async function simulateCommand(args: string[], out: Output): Promise<void> {
  const { values } = parseFlags(
    args,
    {
      devices: { type: 'string' },
      pairing: { type: 'string', multiple: true },
      'pairing-file': { type: 'string' },
      device: { type: 'string' },
      token: { type: 'string' },
      api: { type: 'string' },
      mqtt: { type: 'string' },
      key: { type: 'string' },
      'key-file': { type: 'string' },
      state: { type: 'string' },
      delay: { type: 'string' },
      'fail-send-rate': { type: 'string' },
      'fail-sim': { type: 'string', multiple: true },
      sims: { type: 'string' },
      'undelivered-rate': { type: 'string' },
      'incoming-every': { type: 'string' },
      'calls-every': { type: 'string' },
      mms: { type: 'boolean' },
      'mms-every': { type: 'string' },
      'mms-fetch': { type: 'string' },
      duration: { type: 'string' },
      passphrase: { type: 'string' },
      'passphrase-file': { type: 'string' },
      'encrypt-incoming': { type: 'boolean' },
    },
    USAGE,
  );
  const passphrase = passphraseFrom(values.passphrase, values['passphrase-file']);
  if (values['encrypt-incoming'] && passphrase === undefined) throw new CliError('--encrypt-incoming needs a passphrase: SMS_GATEWAY_PASSPHRASE, --passphrase-file or --passphrase');
  const pairings = [...pairingFlags(values.pairing ?? []), ...(values['pairing-file'] === undefined ? [] : await pairingFile(values['pairing-file']))];
  const given = givenDevices(pairings, values.device, values.token);
  if (values.devices === undefined && given.length === 0) throw new CliError(`say which devices to run: --devices N, --pairing-file FILE, --pairing URL or --device ID --token TOKEN\n${USAGE}`);
  const count = values.devices === undefined ? 0 : wholeNumberFlag('--devices', values.devices, 1, 20_000);
  // Only registering needs the API, and so a key.
  const key = count > 0 ? apiKey(values.key, values['key-file']) : undefined;
  const delay = values.delay === undefined ? 200 : wholeNumberFlag('--delay', values.delay, 0, 600_000);
  // The gateway on this machine, on the ports it is configured with, unless told otherwise.
  const ports = values.api && values.mqtt ? undefined : gatewayPorts();
  const apiUrl = url(values.api ?? `http://127.0.0.1:${ports!.port}`, '--api', ['http:', 'https:']);
  const brokerUrl = url(values.mqtt ?? `mqtt://127.0.0.1:${ports!.mqttPort}`, '--mqtt', ['mqtt:', 'mqtts:', 'ws:', 'wss:']);
  // --mqtt says where the broker is from here, which beats the address a pairing URL was made with.
  if (values.mqtt) for (const device of given) device.brokerUrl = undefined;
  const incomingEvery = values['incoming-every'] === undefined ? undefined : wholeNumberFlag('--incoming-every', values['incoming-every'], 1, 86_400);
  const callsEvery = values['calls-every'] === undefined ? undefined : wholeNumberFlag('--calls-every', values['calls-every'], 1, 86_400);
  /** What --mms alone means: an MMS received every so many seconds. */
  const MMS_DEFAULT_EVERY_S = 30;
  const mmsEvery = values['mms-every'] !== undefined ? wholeNumberFlag('--mms-every', values['mms-every'], 1, 86_400) : values.mms ? MMS_DEFAULT_EVERY_S : undefined;
  const mmsFetch = values['mms-fetch'] ?? 'whole';
  if (mmsFetch !== 'whole' && mmsFetch !== 'ranges') throw new CliError(`--mms-fetch must be whole or ranges, got "${mmsFetch}"`);
  const duration = values.duration === undefined ? undefined : wholeNumberFlag('--duration', values.duration, 1, 86_400);
  const total = count + given.length;
  const failSims = failingSims(values['fail-sim'] ?? []);
  const sims = values.sims === undefined ? (failSims.size > 0 ? 2 : 1) : wholeNumberFlag('--sims', values.sims, 1, 3);
  for (const slot of failSims.keys()) if (slot >= sims) throw new CliError(`--fail-sim ${slot}:...: the devices have SIM slots 0-${sims - 1} (--sims ${sims})`);

  const stateFile = values.state ?? './data/simulator-devices.json';
  if (count > 0) checkStateFile(stateFile);

  const fleet = new Fleet({
    count,
    given,
    apiUrl,
    apiKey: key,
    brokerUrl,
    stateFile,
    // The fleet's phones hear one another: an SMS to a number a SIM of the fleet owns arrives
    // there, so canary rounds pass and replies between the account's own phones come back in.
    radioNetwork: true,
    device: {
      delays: { processing: delay, sent: delay, delivered: delay },
      failSendRate: fraction(values['fail-send-rate'], '--fail-send-rate'),
      ...(failSims.size > 0 ? { failSims } : {}),
      ...(sims > 1 ? { simCards: Array.from({ length: sims }, (_, index) => ({ index, name_operator: `Simulated Mobile ${index + 1}` })) } : {}),
      undeliveredRate: fraction(values['undelivered-rate'], '--undelivered-rate'),
      heartbeatIntervalMs: 60_000,
      ...(passphrase !== undefined ? { passphrase, encryptIncoming: values['encrypt-incoming'] ?? false } : {}),
      mmsFetch,
    },
    // Devices retry a refused CONNECT for ever (as phones must): say why one is not coming online.
    onRefused: (deviceId, code) =>
      process.stderr.write(
        code === 5
          ? `device ${deviceId} refused: not authorized (${refusedHint(deviceId, given, values.state)}); retrying\n`
          : `device ${deviceId} refused with CONNACK ${code} (the gateway cannot serve now); retrying with backoff\n`,
      ),
  });
  // Devices retry an unreachable broker for ever (as phones must): check once that it is there.
  const brokers = new Set([...given.map((device) => device.brokerUrl ?? brokerUrl), ...(count > 0 ? [brokerUrl] : [])]);
  if (count > 0) await reachable(apiUrl);
  for (const broker of brokers) await reachable(broker);
  // Ctrl-C or --duration ends the run, also while devices are still trying to connect.
  const stopRequested = new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
    if (duration) setTimeout(resolve, duration * 1000).unref();
  });
  process.stderr.write(`connecting ${total} simulated device(s) to ${[...brokers].join(', ')} ...\n`);
  try {
    const starting = fleet.start().then(() => true);
    starting.catch(() => {}); // a failure after a stop request changes nothing
    const started = await Promise.race([starting, stopRequested.then(() => false)]);
    if (started) process.stderr.write(`${fleet.devices.length} device(s) online; Ctrl-C stops them\n`);
  } catch (error) {
    await fleet.stop();
    throw new CliError(`simulated devices could not start: ${describe(error, apiUrl)}`, 1);
  }

  const progress = setInterval(() => process.stderr.write(`${summary(fleet)}\n`), 5_000);
  const incoming = incomingEvery
    ? setInterval(() => {
        const device = fleet.devices[Math.floor(Math.random() * fleet.devices.length)];
        void device?.receive('+79990000000', `simulated incoming SMS at ${new Date().toISOString()}`);
      }, incomingEvery * 1000)
    : undefined;

  const calls = callsEvery
    ? setInterval(() => {
        const device = fleet.devices[Math.floor(Math.random() * fleet.devices.length)];
        const direction = (['incoming', 'outgoing', 'missed'] as const)[Math.floor(Math.random() * 3)]!;
        void device?.makeCall({ direction, phone: '+79990000001', durationSeconds: 2 + Math.floor(Math.random() * 60) }).catch(() => {});
      }, callsEvery * 1000)
    : undefined;

  const mms = mmsEvery
    ? setInterval(() => {
        const device = fleet.devices[Math.floor(Math.random() * fleet.devices.length)];
        void device?.receiveMms({ phone: '+79990000002', subject: 'simulated', message: `simulated MMS at ${new Date().toISOString()}`, parts: simulatedMmsParts() }).catch(() => {});
      }, mmsEvery * 1000)
    : undefined;

  await stopRequested;
  clearInterval(mms);
  clearInterval(progress);
  clearInterval(incoming);
  clearInterval(calls);
  await fleet.stop();
  out.result({ devices: fleet.devices.map((device) => device.id), ...fleet.stats }, () => summary(fleet));
}

/** A received MMS's parts: a small JPEG (its signature, then filler) and a vCard. */
function simulatedMmsParts(): { contentType: string; bytes: Buffer }[] {
  const image = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10]), Buffer.from('JFIF\0'), Buffer.alloc(20_000, 0x55)]);
  const card = Buffer.from('BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Simulated Sender\r\nTEL:+79990000002\r\nEND:VCARD\r\n');
  return [
    { contentType: 'image/jpeg', bytes: image },
    { contentType: 'text/vcard', bytes: card },
  ];
}

/** Why a device may be refused, and what to do about it. */
function refusedHint(deviceId: string, given: GivenDevice[], state: string | undefined): string {
  if (given.some((device) => device.device_id === deviceId)) {
    return `deleted, or its token changed? \`sms-gateway devices token ${deviceId}\` issues a new one and its pairing URL`;
  }
  return `deleted, or its token changed? remove ${state ?? './data/simulator-devices.json'} to register new ones`;
}

function summary(fleet: Fleet): string {
  const reports = Object.entries(fleet.stats.reports)
    .map(([status, n]) => `${status} ${n}`)
    .join(', ');
  return `devices ${fleet.devices.length} | tasks ${fleet.stats.tasks} (redelivered ${fleet.stats.redelivered}) | reports: ${reports || 'none'}`;
}

/** A rate flag, 0 when not given. */
function fraction(raw: string | undefined, flag: string): number {
  return raw === undefined ? 0 : fractionFlag(flag, raw);
}

/** PORT and MQTT_PORT as the gateway reads them (a bad value names its variable). */
function gatewayPorts(): { port: number; mqttPort: number } {
  try {
    const { port, mqttPort } = loadConfig();
    return { port, mqttPort };
  } catch (error) {
    if (error instanceof ConfigError) throw new CliError(`invalid configuration: ${error.problems.join('; ')}`, 2);
    throw error;
  }
}

const HINT = 'is it running? set --api/--mqtt or PORT/MQTT_PORT';

/**
 * Port 0 has the gateway pick a free port when it starts; this command reads the same variable
 * and cannot know which one, and "cannot reach :0" would only puzzle.
 */
function portPickedAtStart(protocol: string): string {
  const [variable, flag, scheme] = protocol.startsWith('http') ? ['PORT', '--api', 'http'] : ['MQTT_PORT', '--mqtt', 'mqtt'];
  return `${variable} is 0, so the gateway picks a free port when it starts and this command cannot know it: pass ${flag} ${scheme}://127.0.0.1:PORT with the port the gateway logged at start (its "gateway listening" line)`;
}

/** Resolves once a TCP connection to the URL's host and port opens; a one-line CliError otherwise. */
function reachable(target: string): Promise<void> {
  const parsed = new URL(target);
  if (parsed.port === '0') return Promise.reject(new CliError(portPickedAtStart(parsed.protocol), 2));
  const secure = parsed.protocol === 'https:' || parsed.protocol === 'wss:' || parsed.protocol === 'mqtts:';
  const defaultPort = parsed.protocol.startsWith('mqtt') ? (secure ? 8883 : 1883) : secure ? 443 : 80;
  const port = Number(parsed.port || defaultPort);
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port, timeout: 5_000 });
    socket.once('connect', () => {
      socket.destroy();
      resolve();
    });
    socket.once('timeout', () => {
      socket.destroy();
      reject(new CliError(`cannot reach the gateway at ${target}: no answer within 5 s (${HINT})`, 1));
    });
    socket.once('error', (error) => reject(new CliError(`cannot reach the gateway at ${target}: ${describe(error, target)}`, 1)));
  });
}

/** One line for a network or registration failure, without a stack trace. */
function describe(error: unknown, target: string): string {
  const cause = (error as { cause?: unknown })?.cause ?? error;
  const code = (cause as { code?: unknown })?.code;
  if (code === 'ECONNREFUSED') return `connection refused (${HINT})`;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `unknown host ${new URL(target).hostname} (${HINT})`;
  if (typeof code === 'string') return `${code} (${HINT})`;
  return (error as Error)?.message ?? String(error);
}

/**
 * The state file is written only after the devices are registered, and their tokens are shown
 * nowhere else: one it cannot read or write would leave devices on the gateway that no run can
 * connect, more at every try. So it is checked before anything is registered.
 */
function checkStateFile(path: string): void {
  try {
    const stats = statSync(path, { throwIfNoEntry: false });
    if (stats) {
      if (!stats.isFile()) throw new Error('not a file');
      accessSync(path, constants.R_OK | constants.W_OK);
      const remembered: unknown = JSON.parse(readFileSync(path, 'utf8'));
      if (!Array.isArray(remembered)) throw new Error('not a list of devices');
    } else {
      makeDirectory(dirname(path), 0o700);
      accessSync(dirname(path), constants.W_OK);
    }
  } catch (error) {
    const reason = error instanceof SyntaxError ? 'not JSON' : ((error as NodeJS.ErrnoException).code ?? (error as Error).message);
    throw new CliError(`--state ${path} cannot be used (${reason}): the devices registered are remembered there; name another file with --state`);
  }
}

function url(raw: string, flag: string, protocols: string[]): string {
  try {
    if (protocols.includes(new URL(raw).protocol)) return raw.replace(/\/$/, '');
  } catch {
    // reported below
  }
  throw new CliError(`${flag} must be a ${protocols.join(' / ')} URL, got "${raw}"`);
}

/** --fail-sim SLOT:CODE, each: the slot (0-2) and the error code its sends fail with. */
function failingSims(specs: string[]): Map<number, string> {
  const sims = new Map<number, string>();
  for (const spec of specs) {
    const match = /^([0-2]):([a-z][a-z0-9_]{0,63})$/.exec(spec.trim());
    if (!match) throw new CliError(`--fail-sim must be SLOT:CODE, a slot 0-2 and an error code such as no_service (1:no_service), got "${spec}"`);
    if (sims.has(Number(match[1]))) throw new CliError(`--fail-sim: slot ${match[1]} is given twice`);
    sims.set(Number(match[1]), match[2]!);
  }
  return sims;
}
