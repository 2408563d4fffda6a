import { CliError, type Output } from '../output.ts';
import { withAccountServices } from '../context.ts';
import { parseFlags, withActions } from '../flags.ts';
import { loadConfig, type Config } from '../../config.ts';
import { isUuid } from '../../common/object-id.ts';
import type { DeviceRow } from '../../modules/devices/types.ts';
import { hostAndPort, pairingAddress, pairingUrl, type PairingAddress } from '../../modules/devices/pairing-url.ts';
import { readCertificatePair, type CertificateFiles } from '../../tls/certificate-pair.ts';
import { withAccountServicesToldToTheCluster } from '../cluster-notice.ts';
import { DEVICES_LIST_USAGE, listDevices } from './devices-list.ts';

export const USAGE = `usage:
  sms-gateway devices register --account NAME --name DEVICE_NAME [--host HOST] [--json]
  sms-gateway devices token DEVICE_ID [--host HOST] [--json]
${DEVICES_LIST_USAGE}
token issues a new token for a device (the old one stops working) and prints it once with the
pairing URL. The pairing URL names MQTT_PUBLIC_URL, else PUBLIC_URL's host, else --host, with
MQTT_PORT (MQTTS_PORT, tls=1 and the certificate's pin with TLS_CERT). These are read from this
command's environment, not asked of the running gateway: give it the gateway's settings. The
output says which broker address the URL names, and where each part of it came from (with --json,
pairing_broker: address, from, and hint, or null without a pairing URL).`;

export const devicesCommand = withActions({ register, token, list: (args, out) => listDevices(args, out, USAGE) }, USAGE);

async function register(args: string[], out: Output): Promise<void> {
  const { values } = parseFlags(args, { account: { type: 'string' }, name: { type: 'string' }, host: { type: 'string' } }, USAGE);
  if (!values.account || !values.name) throw new CliError(`devices register needs --account and --name\n${USAGE}`);
  const { account, name } = values as { account: string; name: string };
  const pairing = pairingFor(values.host);
  const { device, token } = await withAccountServices(async (services) => {
    const owner = await services.accounts.require(account);
    return services.devices.register(owner.id, name);
  });
  print(out, device, token, pairing, `device "${device.name}" registered`);
}

async function token(args: string[], out: Output): Promise<void> {
  const { values, positionals } = parseFlags(args, { host: { type: 'string' } }, USAGE, true);
  if (positionals.length !== 1) throw new CliError(`devices token takes one device id\n${USAGE}`);
  const id = positionals[0]!;
  if (!isUuid(id)) throw new CliError(`"${id}" is not a device id (a UUID, as devices register and GET /devices show it)`);
  const pairing = pairingFor(values.host);
  const { device, token } = await withAccountServicesToldToTheCluster(
    async (services) => {
      const found = await services.devices.findAnyAccount(id);
      if (!found) throw new CliError(`no device with id ${id} (or it was deleted)`, 1);
      return services.devices.replaceToken(found.account_id, found.id);
    },
    (api) => `KEY=...   # a key of the device's account that holds devices:write\n  curl -s -X POST '${api}/devices/${id}/token' -H "Authorization: Bearer $KEY"`,
  );
  print(out, device, token, pairing, `device "${device.name_custom ?? device.name}" has a new token; the old one no longer works`);
}

/**
 * Builds the pairing URL once the token is known, and says where its broker address came from;
 * or, when no URL can be made, why.
 */
type Pairing = { url: (deviceId: string, token: string) => string; broker: string; origin: string; hint: string | undefined } | { none: string };

const NO_ADDRESS = 'no pairing URL: set MQTT_PUBLIC_URL or PUBLIC_URL, or pass --host with the host phones reach the broker at';

/**
 * Port 0 has the gateway pick a free port when it starts: which one, only the running gateway
 * knows, and a URL naming port 0 would send phones nowhere.
 */
const portPickedAtStart = (variable: string) =>
  `no pairing URL: this command's ${variable} is 0, so the gateway picks a free port when it starts and this command cannot know it; ` +
  `run this command with the port the gateway logged at start (its "gateway listening" line), or set MQTT_PUBLIC_URL`;

/**
 * The configured addresses, else --host for the broker (a command has no request whose host it
 * could take). Checked before anything is written, so a bad --host changes nothing.
 */
function pairingFor(host: string | undefined): Pairing {
  if (host !== undefined && !/^[A-Za-z0-9.-]+$|^[0-9A-Fa-f:.]+$/.test(host.replace(/^\[(.*)\]$/, '$1'))) {
    throw new CliError(`--host must be a host name or an IP address, got "${host}"`);
  }
  const config = loadConfig();
  // A gateway serving TLS is reached by phones on its MQTTS port, as the API's answers say too.
  const known = {
    mqttPublicUrl: config.mqttPublicUrl,
    publicUrl: config.publicUrl,
    mqttPort: config.tls ? config.tls.mqttsPort : config.mqttPort,
    mqttTls: config.tls !== undefined,
    tlsPin: tlsPinOf(config.tls),
  };
  const address = pairingAddress(known, host ? { hostname: host.replace(/^\[(.*)\]$/, '$1') } : undefined);
  if (!address) return { none: NO_ADDRESS };
  if (!config.mqttPublicUrl && address.broker.port === 0) return { none: portPickedAtStart(config.tls ? 'MQTTS_PORT' : 'MQTT_PORT') };
  return { url: (deviceId, token) => pairingUrl(address, deviceId, token), ...brokerOrigin(address, config) };
}

/**
 * Where the broker address of the URL came from. This command reads its own environment and never
 * the gateway's: a gateway whose broker listens on another port than this environment says would
 * be handed to phones at the wrong port, with nothing to show it but this line.
 */
function brokerOrigin(address: PairingAddress, config: Config): { broker: string; origin: string; hint: string | undefined } {
  const broker = hostAndPort(address.broker);
  if (config.mqttPublicUrl) return { broker, origin: 'the host and the port from MQTT_PUBLIC_URL', hint: undefined };
  const tls = config.tls !== undefined;
  const portVariable = tls ? 'MQTTS_PORT' : 'MQTT_PORT';
  const portSet = (process.env[portVariable] ?? '').trim() !== '';
  return {
    broker,
    origin: `the host from ${config.publicUrl ? 'PUBLIC_URL' : '--host'}, the port from this command's ${portVariable}${portSet ? '' : ` (unset, so its default ${address.broker.port})`}`,
    hint: `if the running gateway's broker listens on another port, run this command with the gateway's ${portVariable}, or with MQTT_PUBLIC_URL=${tls ? 'mqtts' : 'mqtt'}://HOST:PORT where phones reach it`,
  };
}

/** The pin of the certificate the gateway serves, read as the gateway reads it (loadConfig checked the pair). */
function tlsPinOf(files: CertificateFiles | undefined): string | undefined {
  if (!files) return undefined;
  const reading = readCertificatePair(files);
  return 'pair' in reading ? reading.pair.pin : undefined;
}

function print(out: Output, device: DeviceRow, token: string, pairing: Pairing, headline: string): void {
  const credentials = { client_id: device.id, username: device.id, password: token };
  const url = 'url' in pairing ? pairing.url(device.id, token) : null;
  const forwards = device.forward_incoming_sms;
  // The note a person reads below the URL, for a script too: the URL alone cannot show it names a port this command assumed.
  const pairing_broker = 'url' in pairing ? { address: pairing.broker, from: pairing.origin, hint: pairing.hint ?? null } : null;
  out.result({ device_id: device.id, object_id: device.object_id, name: device.name, forward_incoming_sms: forwards, credentials, pairing_url: url, pairing_broker }, () =>
    [
      headline,
      `  device id (MQTT client id and username): ${device.id}`,
      `  legacy object id:                        ${device.object_id}`,
      `  token (MQTT password, shown once):       ${token}`,
      // Off, the phone keeps what it receives (replies, STOP opt-outs) and the gateway shows none.
      `  forwards received SMS:                   ${forwards ? 'yes' : 'no (the phone keeps them until forward_incoming_sms is on)'}`,
      'url' in pairing
        ? [
            `  pairing URL (holds the token):           ${url}`,
            `  broker in the URL:                       ${pairing.broker}: ${pairing.origin}`,
            ...(pairing.hint ? [`    ${pairing.hint}`] : []),
            `  on the device:  sms-gateway-agent --pairing '${url}'`,
          ].join('\n')
        : `  ${pairing.none}`,
    ].join('\n'),
  );
}
