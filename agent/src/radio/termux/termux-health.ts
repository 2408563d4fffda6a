// Whether the phone can send, as the Termux:API commands the agent already runs show it: each
// command's outcome (a send, the heartbeat's status read, the inbox poll) is evidence, and no
// command is run only to find out. The heartbeat says the latest of it (radio.ts RadioHealth).
//
// What Termux lets the agent see: a command that gets no answer from the Termux:API app within
// the command timeout (the app not installed, killed, or kept from running in the background); a
// command that is not installed; the app's refusal for a permission not granted; the SIM's state
// (termux-telephony-deviceinfo sim_state). What it does not: Android's own result of a send (the
// SMS is handed to Android's SMS manager, nothing comes back), so neither Android's limit on SMS
// an app may send (by default 30 in 30 minutes, after which Android asks the user, or refuses,
// silently for Termux:API) nor a send the network refused can be seen; nor whether the phone is
// registered to a network (the cell list says so only with the location permission, and not
// reliably).
import type { RadioHealth } from '../radio.ts';
import type { TermuxCommandError } from './run-termux-command.ts';

/**
 * A permission refusal is seen only when a send is refused, and nothing shows that it was granted
 * since but the next send: after this long the radio says it can send again, so that one SMS finds
 * out (one refused is retried on another phone).
 */
export const DEFAULT_PERMISSION_RECHECK_MS = 10 * 60_000;

export class TermuxHealth {
  private missing: string | undefined;
  private unresponsive: string | undefined;
  private permission: { detail: string; at: number } | undefined;
  private sim: { problem: 'no_sim' | 'sim_locked'; detail: string } | undefined;

  constructor(
    private readonly permissionRecheckMs = DEFAULT_PERMISSION_RECHECK_MS,
    private readonly now: () => number = Date.now,
  ) {}

  /** A termux-* command ended: answered (whatever it said), or failed as `error` says. */
  commandEnded(error: TermuxCommandError | undefined): void {
    if (!error || error.reason === 'failed') {
      // It ran and the app answered: the app is there and responsive.
      this.missing = undefined;
      this.unresponsive = undefined;
      return;
    }
    if (error.reason === 'missing') this.missing = error.message;
    else this.unresponsive = error.message;
  }

  /** termux-sms-send answered with a refusal naming a permission. */
  permissionRefused(detail: string): void {
    this.permission = { detail, at: this.now() };
  }

  /** termux-sms-send took an SMS: the permission is there. */
  sendTaken(): void {
    this.permission = undefined;
  }

  /** What termux-telephony-deviceinfo said of the SIM ("ready", "absent", "pin_required"...); undefined: no answer. */
  simState(state: string | undefined): void {
    if (state === undefined || state === 'ready' || state === 'unknown') this.sim = undefined;
    else if (state === 'absent') this.sim = { problem: 'no_sim', detail: 'termux-telephony-deviceinfo: sim_state absent' };
    else this.sim = { problem: 'sim_locked', detail: `termux-telephony-deviceinfo: sim_state ${state}` };
  }

  report(): RadioHealth {
    if (this.missing) return { canSend: false, problem: 'termux_api_missing', detail: this.missing };
    if (this.unresponsive) return { canSend: false, problem: 'termux_api_unresponsive', detail: this.unresponsive };
    if (this.permission && this.now() - this.permission.at >= this.permissionRecheckMs) this.permission = undefined;
    if (this.permission) return { canSend: false, problem: 'permission_missing', detail: this.permission.detail };
    if (this.sim) return { canSend: false, ...this.sim };
    return { canSend: true };
  }
}

/** Whether a refusal of termux-sms-send is about a permission (Termux:API: "Please grant the following permission..."). */
export function isPermissionRefusal(error: string): boolean {
  return /permission/i.test(error);
}
