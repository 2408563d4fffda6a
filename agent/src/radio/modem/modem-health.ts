// Whether the modem can send, asked of it at each heartbeat's status read (no loop of its own):
// the SIM (AT+CPIN?: +CME ERROR 10, or "SIM not inserted" in a modem's verbose words, is no SIM;
// a PIN or PUK still asked is a locked SIM) and the network (AT+CREG?: 0 not searching, 2
// searching and 3 denied are not registered). A modem that does not answer these at all says
// nothing either way: it may still send.
import type { RadioHealth } from '../radio.ts';
import type { AtChannel } from './at-channel.ts';
import { AtCommandError, AtTimeoutError } from './at-errors.ts';
import { fieldsOf, findLine, parseRegistration, REGISTRATION_STATES } from './responses.ts';

const NOT_REGISTERED = new Set([0, 2, 3]);

export async function modemHealth(channel: AtChannel): Promise<RadioHealth> {
  const sim = await simHealth(channel);
  if (sim) return sim;
  const registration = await answer(channel, 'AT+CREG?');
  if (registration instanceof AtTimeoutError) return { canSend: false, problem: 'modem_unresponsive', detail: registration.message };
  const state = registration instanceof Error ? undefined : parseRegistration(registration);
  if (state !== undefined && NOT_REGISTERED.has(state)) {
    return { canSend: false, problem: 'not_registered', detail: `AT+CREG?: ${REGISTRATION_STATES[state]} (${state})` };
  }
  return { canSend: true };
}

async function simHealth(channel: AtChannel): Promise<RadioHealth | undefined> {
  const said = await answer(channel, 'AT+CPIN?');
  if (said instanceof AtTimeoutError) return { canSend: false, problem: 'modem_unresponsive', detail: said.message };
  if (said instanceof AtCommandError) {
    if (said.code === 10 || /not inserted/i.test(said.detail ?? '')) return { canSend: false, problem: 'no_sim', detail: said.message };
    return undefined;
  }
  if (said instanceof Error) return undefined;
  const line = findLine(said, '+CPIN:');
  const state = line ? fieldsOf(line)[0] : undefined;
  if (state === undefined || state === 'READY') return undefined;
  if (/not inserted/i.test(state)) return { canSend: false, problem: 'no_sim', detail: `AT+CPIN?: ${state}` };
  return { canSend: false, problem: 'sim_locked', detail: `AT+CPIN?: ${state}` };
}

async function answer(channel: AtChannel, command: string): Promise<string[] | Error> {
  try {
    return await channel.command(command);
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  }
}
