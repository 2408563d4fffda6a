// One process of the fleet benchmarks' load generator: runs its share of the simulated phones
// (SimulatedDevice, the same client code as everywhere) for scripts/bench/fleet-generators.ts.
// A process may hold no more sockets than its open-file limit, so a fleet larger than that is
// split over several of these. Told what to do over the IPC channel; answers there too.
//
// Messages in: connect (devices, broker URL, connects in flight, phase limit), restarted (the
// gateway went away: count re-announcements from now on), count (devices connected now), stop
// (graceful or not), exit. Messages out: progress, connected (the phase's outcome), storm
// (re-announced so far), count, stopped.
import { SimulatedDevice } from '../../src/simulator/device.ts';

export interface WorkerDevice {
  id: string;
  token: string;
  name: string;
  /** The node this device connects to, when not the phase's broker (a fleet spread over nodes). */
  brokerUrl?: string;
}

export type WorkerCommand =
  | { type: 'connect'; brokerUrl: string; devices: WorkerDevice[]; concurrency: number; phaseLimitMs: number }
  | { type: 'restarted' }
  | { type: 'count' }
  | { type: 'stop'; graceful: boolean }
  | { type: 'exit' };

export type WorkerReport =
  | { type: 'progress'; online: number }
  | { type: 'connected'; online: number; failed: number; firstConnectAt: number; lastOnlineAt: number; cpuMs: number }
  | { type: 'restarted'; onlineAtRestart: number }
  | { type: 'storm'; reannounced: number; lastAt: number }
  | { type: 'count'; connected: number }
  | { type: 'stopped' }
  | { type: 'failure'; message: string };

const send = (report: WorkerReport) => process.send?.(report);
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

let devices: SimulatedDevice[] = [];
/** Per device: 0 never online, 1 online before the restart, 2 back online after it. */
let seen = new Uint8Array(0);
let restarted = false;
let reannounced = 0;
let lastReannounceAt = 0;
let stormTimer: NodeJS.Timeout | undefined;

async function connect(command: Extract<WorkerCommand, { type: 'connect' }>): Promise<void> {
  const cpuBefore = process.cpuUsage();
  seen = new Uint8Array(command.devices.length);
  let next = 0;
  let online = 0;
  let failed = 0;
  let stopped = false;
  const firstConnectAt = Date.now();
  let lastOnlineAt = firstConnectAt;
  const worker = async () => {
    while (!stopped && next < command.devices.length) {
      const index = next++;
      const { id, token, name, brokerUrl } = command.devices[index]!;
      const device = new SimulatedDevice({
        brokerUrl: brokerUrl ?? command.brokerUrl,
        deviceId: id,
        token,
        name,
        // Phones back off with jitter; a fixed period would make every retry a synchronized wave.
        reconnectPeriodMs: 500 + Math.floor(Math.random() * 1000),
        heartbeatIntervalMs: 60_000,
        keepaliveSeconds: 60,
      });
      device.on('connected', () => {
        if (!restarted) seen[index] = 1;
        else if (seen[index] === 1) {
          seen[index] = 2;
          reannounced++;
          lastReannounceAt = Date.now();
        }
      });
      devices.push(device);
      for (let attempt = 1; ; attempt++) {
        try {
          await device.connect();
          online++;
          lastOnlineAt = Date.now();
          break;
        } catch {
          if (attempt >= 3 || stopped) {
            failed++;
            break;
          }
          await sleep(200 * attempt);
        }
      }
    }
  };
  const progress = setInterval(() => send({ type: 'progress', online }), 1_000);
  await Promise.race([Promise.all(Array.from({ length: Math.min(command.concurrency, command.devices.length) }, worker)), sleep(command.phaseLimitMs)]);
  stopped = true;
  clearInterval(progress);
  const cpu = process.cpuUsage(cpuBefore);
  send({ type: 'connected', online, failed, firstConnectAt, lastOnlineAt, cpuMs: (cpu.user + cpu.system) / 1000 });
}

async function stop(graceful: boolean): Promise<void> {
  if (stormTimer) clearInterval(stormTimer);
  const stops = devices.map((device) => (graceful ? device.stop() : device.kill()).catch(() => {}));
  await Promise.race([Promise.all(stops), sleep(20_000)]);
  devices = [];
  restarted = false;
  reannounced = 0;
  send({ type: 'stopped' });
}

process.on('message', (command: WorkerCommand) => {
  const failed = (error: unknown) => send({ type: 'failure', message: (error as Error).stack ?? String(error) });
  switch (command.type) {
    case 'connect':
      connect(command).catch(failed);
      break;
    case 'restarted': {
      restarted = true;
      reannounced = 0;
      send({ type: 'restarted', onlineAtRestart: seen.reduce((count, state) => count + (state === 1 ? 1 : 0), 0) });
      stormTimer = setInterval(() => send({ type: 'storm', reannounced, lastAt: lastReannounceAt }), 200);
      break;
    }
    case 'count':
      send({ type: 'count', connected: devices.filter((device) => device.connected).length });
      break;
    case 'stop':
      stop(command.graceful).catch(failed);
      break;
    case 'exit':
      process.exit(0);
  }
});
// The parent gone (killed, crashed): nothing is left running.
process.on('disconnect', () => process.exit(0));
