// Bringing a freshly opened modem into the state the driver relies on: no echo, numeric errors,
// the SIM unlocked, PDU mode, new SMS stored and announced (+CMTI), status reports handed over
// (+CDS), and registered to a network (waited for, within a bound).
import type { AtChannel } from './at-channel.ts';
import { RadioNeedsOperatorError } from '../radio.ts';
import { AtCommandError } from './at-errors.ts';
import { fieldsOf, findLine, parseReadStorage, parseRegistration, REGISTRATION_STATES } from './responses.ts';

export interface SetupOptions {
  pin: string | undefined;
  /** How long to wait for network registration before going on anyway (a problem is reported). */
  registrationTimeoutMs: number;
  registrationPollMs: number;
  problem(message: string): void;
}

export interface ModemSetup {
  /** Manufacturer and model, for the heartbeat. */
  name: string | undefined;
  /** The modem hands status reports over: a send can promise delivery reports. */
  deliveryReports: boolean;
  /** Each +CMT/+CDS must be acknowledged with AT+CNMA (SMS service phase 2+). */
  needsAck: boolean;
  /** Where AT+CMGR/CMGL/CMGD read and delete (SM, ME...). */
  readStorage: string | undefined;
}

/** A setup failure a retry cannot fix (the SIM's PIN): the operator must act. */
export class ModemSetupError extends RadioNeedsOperatorError {
  override readonly name = 'ModemSetupError';
}

// Tried in order until one is accepted. The preferred 2,1,0,1,0: notices are held while a command
// runs and flushed after it (mode 2), new SMS are stored and announced with +CMTI (mt 1, so an SMS
// survives until we delete it), status reports come directly as +CDS (ds 1), which in SMS phase 2
// (AT+CSMS=0) need no AT+CNMA. Modems that refuse ds 1 are asked to store reports (ds 2, +CDSI).
const NOTIFICATION_MODES = ['2,1,0,1,0', '1,1,0,1,0', '2,1,0,2,0', '1,1,0,2,0', '2,1,0,0,0', '1,1,0,0,0'];

const SIM_READY_WAIT_MS = 10_000;
const SIM_POLL_MS = 500;

export async function setUpModem(channel: AtChannel, options: SetupOptions): Promise<ModemSetup> {
  channel.cancelPrompt();
  await channel.command('AT');
  await channel.command('ATE0');
  await optional(channel, 'AT+CMEE=1');
  await unlockSim(channel, options.pin);
  try {
    await channel.command('AT+CMGF=0');
  } catch (error) {
    throw new Error(`the modem refuses PDU mode (AT+CMGF=0): ${describe(error)}`);
  }
  const needsAck = await chooseMessageService(channel);
  const deliveryReports = await chooseNotifications(channel, options.problem);
  const readStorage = parseReadStorage((await optional(channel, 'AT+CPMS?')) ?? []);
  // Operator names as text rather than numeric codes, for the heartbeat.
  await optional(channel, 'AT+COPS=3,0');
  const name = await identify(channel);
  await waitForRegistration(channel, options);
  return { name, deliveryReports, needsAck, readStorage };
}

async function unlockSim(channel: AtChannel, pin: string | undefined): Promise<void> {
  let state = await simState(channel);
  if (state === 'SIM PIN') {
    if (!pin) throw new ModemSetupError('the SIM card asks for its PIN; give it with --pin');
    try {
      await channel.command(`AT+CPIN="${pin}"`);
    } catch (error) {
      // Never tried again by itself: three wrong PINs lock the card behind its PUK.
      if (error instanceof AtCommandError && error.code === 16) {
        throw new ModemSetupError('the SIM card refused the PIN (incorrect password); correct --pin before trying again, three wrong tries lock the card');
      }
      throw new ModemSetupError(`the SIM card did not take the PIN: ${describe(error)}`);
    }
    // The card is busy for a moment after its PIN.
    const deadline = Date.now() + SIM_READY_WAIT_MS;
    do {
      state = await simState(channel).catch(() => 'busy');
      if (state === 'READY') return;
      await delay(SIM_POLL_MS);
    } while (Date.now() < deadline);
    throw new Error(`the SIM card is not ready after its PIN (${state})`);
  }
  if (state === 'READY') return;
  if (state === 'SIM PUK') throw new ModemSetupError('the SIM card is locked and asks for its PUK; unlock it in a phone first');
  throw new ModemSetupError(`the SIM card asks for ${state}`);
}

async function simState(channel: AtChannel): Promise<string> {
  try {
    const line = findLine(await channel.command('AT+CPIN?'), '+CPIN:');
    return line ? (fieldsOf(line)[0] ?? 'unknown') : 'unknown';
  } catch (error) {
    if (error instanceof AtCommandError && error.code === 10) throw new ModemSetupError('no SIM card in the modem');
    throw error;
  }
}

/** SMS phase 2 needs no acknowledgement of +CMT/+CDS; a modem that stays in phase 2+ needs AT+CNMA. */
async function chooseMessageService(channel: AtChannel): Promise<boolean> {
  if ((await optional(channel, 'AT+CSMS=0')) !== undefined) return false;
  const line = findLine((await optional(channel, 'AT+CSMS?')) ?? [], '+CSMS:');
  return line ? fieldsOf(line)[0] === '1' : false;
}

async function chooseNotifications(channel: AtChannel, problem: (message: string) => void): Promise<boolean> {
  for (const mode of NOTIFICATION_MODES) {
    if ((await optional(channel, `AT+CNMI=${mode}`)) !== undefined) {
      const reports = mode.split(',')[3] !== '0';
      if (!reports) problem('the modem does not hand over status reports: sends get no delivery report');
      return reports;
    }
  }
  problem('the modem refuses every AT+CNMI setting: new SMS are found by polling only, no delivery reports');
  return false;
}

async function identify(channel: AtChannel): Promise<string | undefined> {
  const maker = firstPlainLine(await optional(channel, 'AT+CGMI'));
  const model = firstPlainLine(await optional(channel, 'AT+CGMM'));
  const name = [maker, model].filter(Boolean).join(' ');
  return name || firstPlainLine(await optional(channel, 'ATI'));
}

function firstPlainLine(lines: string[] | undefined): string | undefined {
  const line = lines?.find((candidate) => candidate.trim().length > 0);
  return line?.replace(/^\+CGM[IM]:\s*/, '').trim().slice(0, 64);
}

async function waitForRegistration(channel: AtChannel, options: SetupOptions): Promise<void> {
  const deadline = Date.now() + options.registrationTimeoutMs;
  let state: number | undefined;
  for (;;) {
    state = parseRegistration((await optional(channel, 'AT+CREG?')) ?? []);
    if (state === 1 || state === 5) return;
    if (Date.now() + options.registrationPollMs > deadline) break;
    await delay(options.registrationPollMs);
  }
  const meaning = state === undefined ? 'no answer to AT+CREG?' : (REGISTRATION_STATES[state] ?? `state ${state}`);
  options.problem(`the modem is not registered to a network (${meaning}); sending will fail until it is`);
}

/** A command whose refusal is not fatal: undefined when refused. A timeout still ends the session. */
async function optional(channel: AtChannel, command: string): Promise<string[] | undefined> {
  try {
    return await channel.command(command);
  } catch (error) {
    if (error instanceof AtCommandError) return undefined;
    throw error;
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
