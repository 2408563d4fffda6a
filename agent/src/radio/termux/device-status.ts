// The heartbeat's picture of the phone, read fresh from Termux:API each time. Each command is read
// on its own: one that fails leaves its fields out (and is reported once), never the heartbeat.
import type { RadioStatus } from '../radio.ts';
import { runTermuxCommand, type CommandSettings } from './run-termux-command.ts';
import { numberField, parseTermuxArray, parseTermuxObject, stringField, booleanField, type JsonObject } from './termux-json.ts';
import type { ProblemOnce } from './problem-once.ts';

export const BATTERY_COMMAND = 'termux-battery-status';
export const DEVICE_INFO_COMMAND = 'termux-telephony-deviceinfo';
export const CELL_INFO_COMMAND = 'termux-telephony-cellinfo';
// Android's own property reader (/system/bin), for the model name Termux:API does not print.
export const GETPROP_COMMAND = 'getprop';

export interface DeviceStatus {
  status: RadioStatus;
  /** SIM slots the phone has (not SIMs inserted), when the device info said. */
  slotCount: number | undefined;
  /** The default SIM's state ("ready", "absent", "pin_required"...), when the device info said. */
  simState: string | undefined;
}

export class DeviceStatusReader {
  private modelName: string | undefined;

  constructor(
    private readonly settings: CommandSettings,
    private readonly problems: ProblemOnce,
  ) {}

  async read(): Promise<DeviceStatus> {
    const [battery, device, cells, name] = await Promise.all([
      this.attempt(BATTERY_COMMAND, async () => batteryFields(parseTermuxObject(BATTERY_COMMAND, await this.run(BATTERY_COMMAND)))),
      this.attempt(DEVICE_INFO_COMMAND, async () => deviceInfoFields(parseTermuxObject(DEVICE_INFO_COMMAND, await this.run(DEVICE_INFO_COMMAND)))),
      this.attempt(CELL_INFO_COMMAND, async () => signalPercent(parseTermuxArray(CELL_INFO_COMMAND, await this.run(CELL_INFO_COMMAND)))),
      this.readModelName(),
    ]);
    const status: RadioStatus = {
      ...battery,
      simCards: device?.simCards ?? [],
      ...(cells === undefined ? {} : { signalPercent: cells }),
      ...(name === undefined ? {} : { name }),
      type: 'android',
    };
    return { status, slotCount: device?.slotCount, simState: device?.simState };
  }

  private async run(command: string): Promise<string> {
    return (await runTermuxCommand(this.settings, command, [])).stdout;
  }

  // The model does not change while the agent runs: read once it worked.
  private async readModelName(): Promise<string | undefined> {
    if (this.modelName !== undefined) return this.modelName;
    const model = await this.attempt(GETPROP_COMMAND, async () => {
      const { stdout } = await runTermuxCommand(systemCommandSettings(this.settings), GETPROP_COMMAND, ['ro.product.model']);
      return stdout.trim() || undefined;
    });
    this.modelName = model;
    return model;
  }

  private async attempt<T>(command: string, read: () => Promise<T>): Promise<T | undefined> {
    try {
      const value = await read();
      this.problems.clear(command);
      return value;
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      this.problems.fail(command, `status: ${reason}; the heartbeat goes without it`);
      return undefined;
    }
  }
}

// Termux's PATH holds only its own commands; Android's own live in /system/bin, tried last.
function systemCommandSettings(settings: CommandSettings): CommandSettings {
  const env = settings.env ?? process.env;
  const path = env.PATH ? `${env.PATH}:/system/bin` : '/system/bin';
  return { ...settings, binDir: undefined, env: { ...env, PATH: path } };
}

/**
 * From BatteryStatusAPI's object: "percentage" (BatteryManager capacity, 0-100; absent on some
 * phones), else "level" / "scale"; "plugged" ("UNPLUGGED", "PLUGGED_AC", "PLUGGED_USB"...) and
 * "status" ("CHARGING", "DISCHARGING", "FULL", "NOT_CHARGING", "UNKNOWN").
 */
export function batteryFields(battery: JsonObject): Pick<RadioStatus, 'batteryLevel' | 'isCharging'> {
  const percentage = numberField(battery, 'percentage');
  const level = numberField(battery, 'level');
  const scale = numberField(battery, 'scale');
  const batteryLevel =
    percentage !== undefined && percentage >= 0
      ? percentage
      : level !== undefined && scale !== undefined && level >= 0 && scale > 0
        ? Math.round((level / scale) * 100)
        : undefined;
  const plugged = stringField(battery, 'plugged');
  const state = stringField(battery, 'status');
  // Plugged in but "NOT_CHARGING" (a full battery held by the charger) still counts: the phone
  // is on mains, which is what the operator wants to know.
  const isCharging =
    plugged === undefined && state === undefined
      ? undefined
      : (plugged !== undefined && plugged !== 'UNPLUGGED') || state === 'CHARGING' || state === 'FULL';
  return {
    ...(batteryLevel === undefined ? {} : { batteryLevel: Math.min(100, batteryLevel) }),
    ...(isCharging === undefined ? {} : { isCharging }),
  };
}

/**
 * From TelephonyAPI's device info: "sim_state" ("ready", "absent", "pin_required"...),
 * "sim_operator_name" and "network_operator_name", "phone_count" (SIM slots). Android shows
 * Termux:API only the default SIM, so one card at most is reported, as slot 0.
 */
export function deviceInfoFields(info: JsonObject): { simCards: RadioStatus['simCards']; slotCount: number | undefined; simState: string | undefined } {
  const phoneCount = numberField(info, 'phone_count');
  const slotCount = phoneCount !== undefined && phoneCount > 0 ? phoneCount : undefined;
  const simState = stringField(info, 'sim_state');
  if (simState !== 'ready') return { simCards: [], slotCount, simState };
  const operator = stringField(info, 'sim_operator_name') || stringField(info, 'network_operator_name') || '';
  return { simCards: [{ index: 0, name_operator: operator }], slotCount, simState };
}

/**
 * From TelephonyAPI's cell list: the cells the phone is registered on ("registered": true), each
 * with "level" (Android's 0-4 bars; absent for LTE/NR when unknown) and "dbm". The best registered
 * cell counts: 0-4 bars become 0-100; without bars, -113 dBm (nothing) to -51 dBm (excellent) are
 * scaled to 0-100. Undefined with no registered cell (also what Android 10+ gives without the
 * location permission).
 */
export function signalPercent(cells: JsonObject[]): number | undefined {
  const percents = cells
    .filter((cell) => booleanField(cell, 'registered') === true)
    .map((cell) => {
      const level = numberField(cell, 'level');
      if (level !== undefined && level >= 0 && level <= 4) return level * 25;
      const dbm = numberField(cell, 'dbm');
      if (dbm !== undefined && dbm < 0) return Math.round(Math.min(1, Math.max(0, (dbm + 113) / 62)) * 100);
      return undefined;
    })
    .filter((percent) => percent !== undefined);
  return percents.length === 0 ? undefined : Math.max(...percents);
}
