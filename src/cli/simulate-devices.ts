// What `sms-gateway simulate` is told to run, read from its flags: devices registered beforehand
// (pairing URLs, or an id and a token), and the API key that registering new ones takes.
import { text } from 'node:stream/consumers';
import { parsePairingUrl } from '../../agent/src/pairing.ts';
import { isUuid } from '../common/object-id.ts';
import type { GivenDevice } from '../simulator/fleet.ts';
import { CliError } from './output.ts';
import { firstLineOfFile, textOfFile } from './secret-file.ts';

/** A pairing URL as given, and where: errors name the place, never the URL, which holds the token. */
export interface GivenPairing {
  url: string;
  from: string;
}

/** The pairing URLs of --pairing, each named by its place among them. */
export function pairingFlags(urls: string[]): GivenPairing[] {
  return urls.map((url, i) => ({ url, from: `--pairing${urls.length > 1 ? ` (the ${ordinal(i + 1)})` : ''}` }));
}

/**
 * The pairing URLs of --pairing-file, one a line (blank lines and lines starting with # skipped),
 * from stdin when it is "-". A pairing URL holds the device's token: in a file or a pipe it stays
 * out of the process list, where every user of the machine would read it from --pairing.
 */
export async function pairingFile(file: string): Promise<GivenPairing[]> {
  const where = file === '-' ? '--pairing-file - (stdin)' : `--pairing-file ${file}`;
  const content = file === '-' ? await text(process.stdin) : textOfFile('--pairing-file', file);
  const pairings: GivenPairing[] = [];
  content.split(/\r?\n/).forEach((line, i) => {
    const url = line.trim();
    if (url !== '' && !url.startsWith('#')) pairings.push({ url, from: `${where}, line ${i + 1}` });
  });
  if (pairings.length === 0) throw new CliError(`${where}: no pairing URL in it (write one a line, as devices register prints it)`);
  return pairings;
}

/**
 * The devices named by --pairing (each) and --device with --token; errors never repeat a token.
 * They carry no name: running a registered device must not rename it (docs/pairing.md: a device
 * keeps its id, settings and SMS), so its heartbeats report none.
 */
export function givenDevices(pairings: GivenPairing[], deviceId: string | undefined, token: string | undefined): GivenDevice[] {
  const devices: GivenDevice[] = pairings.map(({ url, from }) => {
    try {
      const pairing = parsePairingUrl(url);
      return { device_id: pairing.deviceId, token: pairing.token, brokerUrl: pairing.brokerUrl, apiUrl: pairing.apiUrl, pin: pairing.pin };
    } catch (error) {
      throw new CliError(`${from}: ${(error as Error).message}`);
    }
  });
  if ((deviceId === undefined) !== (token === undefined)) throw new CliError('--device and --token go together: the device id and its token');
  if (deviceId !== undefined && token !== undefined) {
    if (!isUuid(deviceId)) throw new CliError(`--device must be a device id (a UUID, as devices register shows it), got "${deviceId}"`);
    if (token.trim() === '') throw new CliError('--token is empty');
    devices.push({ device_id: deviceId.toLowerCase(), token });
  }
  const seen = new Set<string>();
  for (const device of devices) {
    // One device connected twice would have each connection close the other, for ever.
    if (seen.has(device.device_id)) throw new CliError(`device ${device.device_id} is given twice; each device runs once`);
    seen.add(device.device_id);
  }
  return devices;
}

/**
 * The API key: --key, else the first line of --key-file, else SMS_GATEWAY_KEY. The file and the
 * variable keep it out of the process list and the shell history.
 */
export function apiKey(flag: string | undefined, file: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  if (flag !== undefined && file !== undefined) throw new CliError('give the API key once: --key or --key-file, not both');
  if (flag !== undefined) {
    if (flag.trim() === '') throw new CliError('--key is empty');
    return flag.trim();
  }
  if (file !== undefined) {
    const key = firstLineOfFile('--key-file', file).trim();
    if (key === '') throw new CliError(`--key-file ${file}: its first line is empty; write the API key there`);
    return key;
  }
  const fromEnv = env.SMS_GATEWAY_KEY?.trim();
  if (fromEnv) return fromEnv;
  throw new CliError('registering simulated devices (--devices) needs an API key with devices:write: set SMS_GATEWAY_KEY, or --key-file PATH (or --key KEY)');
}

function ordinal(n: number): string {
  return n === 1 ? 'first' : n === 2 ? 'second' : n === 3 ? 'third' : `${n}th`;
}
