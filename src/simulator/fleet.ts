// A fleet of simulated devices: registers (or reuses) them through the HTTP API, or runs devices
// registered beforehand whose credentials it is given, connects them with bounded concurrency,
// and keeps counts of what they did. Used by `sms-gateway simulate`, the demo and the benchmarks.
// With `radioNetwork`, SMS its phones send to each other's numbers arrive as received SMS
// (src/simulator/radio-network.ts).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { SimulatedDevice, type SimulatedDeviceOptions } from './device.ts';
import { RadioNetwork, type RadioNetworkOptions } from './radio-network.ts';
import { makeDirectory } from '../common/make-directory.ts';

export interface DeviceCredentials {
  device_id: string;
  token: string;
  name: string;
}

/**
 * A device registered beforehand (`devices register`, the panel, a pairing URL). Without a name it
 * reports none in its heartbeats, so the gateway keeps the one its owner registered it with.
 */
export interface GivenDevice extends Omit<DeviceCredentials, 'name'> {
  name?: string | undefined;
  /** Its own broker (a pairing URL names one); none: the fleet's. */
  brokerUrl?: string | undefined;
  /** Its own gateway HTTP base, for recording uploads; none: the fleet's. */
  apiUrl?: string | undefined;
  /** The pairing URL's pin, by which a self-signed or private-CA certificate is trusted. */
  pin?: string | undefined;
}

export interface FleetOptions {
  /** Devices to register (or reuse from stateFile) through the API, besides `given`. */
  count: number;
  /** Devices that exist already: run as they are, never registered. */
  given?: GivenDevice[];
  /** Base URL of the gateway's HTTP server, such as http://127.0.0.1:3000. */
  apiUrl: string;
  /** A key with devices:write; needed only when `count` is above 0. */
  apiKey?: string | undefined;
  brokerUrl: string;
  /** File that remembers registered devices between runs; none: register new ones each run. */
  stateFile?: string | undefined;
  device?: Partial<Omit<SimulatedDeviceOptions, 'brokerUrl' | 'deviceId' | 'token'>>;
  /** Connections opened at once. */
  concurrency?: number;
  /** A device's CONNECT was refused (it keeps retrying with backoff): told once per device. */
  onRefused?: (deviceId: string, returnCode: number) => void;
  /**
   * Carry SMS between the fleet's phones: one sent to a number a SIM of the fleet owns arrives at
   * that phone, which forwards it (devices registered now forward received SMS by default). true,
   * or the network's options (air time, broken senders and receivers for drills).
   */
  radioNetwork?: boolean | RadioNetworkOptions;
}

export interface FleetStats {
  connected: number;
  tasks: number;
  redelivered: number;
  reports: Record<string, number>;
}

/** Registrations answered 503 are tried again this many times in all, after the Retry-After delay. */
const MAX_REGISTER_ATTEMPTS = 10;

export class Fleet {
  /** Devices connected (and announced) so far. */
  readonly devices: SimulatedDevice[] = [];
  /** Every device started, connected or still trying: stop() ends them all. */
  private readonly started: SimulatedDevice[] = [];
  private stopped = false;
  readonly stats: FleetStats = { connected: 0, tasks: 0, redelivered: 0, reports: {} };
  /** The air between the fleet's phones, when the radioNetwork option asked for it. */
  readonly network: RadioNetwork | undefined;

  constructor(private readonly options: FleetOptions) {
    const network = options.radioNetwork;
    if (network) this.network = new RadioNetwork(network === true ? {} : network);
  }

  async start(onProgress?: (connected: number) => void): Promise<void> {
    const credentials = await this.credentials();
    let next = 0;
    const worker = async () => {
      while (next < credentials.length && !this.stopped) {
        const entry: GivenDevice = credentials[next++]!;
        const device = new SimulatedDevice({
          ...this.options.device,
          brokerUrl: entry.brokerUrl ?? this.options.brokerUrl,
          // Where a device with record_calls on uploads its call recordings.
          apiUrl: entry.apiUrl ?? this.options.apiUrl,
          ...(entry.pin ? { pin: entry.pin } : {}),
          deviceId: entry.device_id,
          token: entry.token,
          name: entry.name ?? null,
        });
        device.on('task', (_task, again) => {
          this.stats.tasks++;
          if (again) this.stats.redelivered++;
        });
        device.on('report', (_id, status) => (this.stats.reports[status] = (this.stats.reports[status] ?? 0) + 1));
        device.on('connected', () => this.stats.connected++);
        device.once('refused', (code) => this.options.onRefused?.(device.id, code));
        // Joined before it connects: a task it takes at once already reaches the other phones.
        this.network?.join(device);
        this.started.push(device);
        await device.connect();
        if (this.stopped) return void (await device.stop());
        this.devices.push(device);
        onProgress?.(this.devices.length);
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.options.concurrency ?? 100, credentials.length) }, worker));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.network?.stop();
    await Promise.all(this.started.map((device) => device.stop()));
  }

  /** The given devices, then remembered ones, then new ones registered through POST /api/ext/v1/devices. */
  private async credentials(): Promise<GivenDevice[]> {
    return [...(this.options.given ?? []), ...(await this.registered())];
  }

  private async registered(): Promise<DeviceCredentials[]> {
    const { stateFile, count } = this.options;
    if (count <= 0) return [];
    const known: DeviceCredentials[] = stateFile && existsSync(stateFile) ? (JSON.parse(readFileSync(stateFile, 'utf8')) as DeviceCredentials[]) : [];
    const result = known.slice(0, count);
    for (let i = result.length; i < count && !this.stopped; i++) result.push(await this.register(`simulated-${i + 1}`));
    if (stateFile && result.length > known.length) {
      makeDirectory(dirname(stateFile));
      writeFileSync(stateFile, JSON.stringify(result, null, 2), { mode: 0o600 });
    }
    return result;
  }

  private async register(name: string): Promise<DeviceCredentials> {
    if (!this.options.apiKey) throw new Error('registering a simulated device needs an API key with devices:write');
    let response: Response;
    for (let attempt = 1; ; attempt++) {
      response = await fetch(`${this.options.apiUrl}/api/ext/v1/devices`, {
        method: 'POST',
        headers: { authorization: `Bearer ${this.options.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name }),
      });
      // A busy gateway (or one whose database is away) says when to come back: as a client should.
      if (response.status !== 503 || attempt >= MAX_REGISTER_ATTEMPTS) break;
      await response.body?.cancel();
      const retryAfter = Number(response.headers.get('retry-after'));
      await new Promise((resolve) => setTimeout(resolve, Number.isFinite(retryAfter) && retryAfter > 0 ? Math.min(retryAfter, 30) * 1000 : 1000));
    }
    const body = (await response.json()) as { device?: { id: string }; credentials?: { password: string }; error?: { message: string } };
    if (response.status !== 201 || !body.device || !body.credentials) {
      throw new Error(`could not register a device (${response.status}): ${body.error?.message ?? 'unexpected answer'}`);
    }
    return { device_id: body.device.id, token: body.credentials.password, name };
  }
}
