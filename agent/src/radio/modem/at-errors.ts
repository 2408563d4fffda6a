// What can go wrong with one AT command, as values the driver can tell apart.
import type { SendErrorCode } from '../send-error-codes.ts';
import { cmeErrorText, cmsErrorCode, cmsErrorText } from './error-texts.ts';

/** The modem answered the command with ERROR, +CME ERROR: n or +CMS ERROR: n. */
export class AtCommandError extends Error {
  override readonly name = 'AtCommandError';

  constructor(
    readonly command: string,
    readonly kind: 'ERROR' | '+CME ERROR' | '+CMS ERROR',
    /** The number after +CME/+CMS ERROR; undefined for a plain ERROR or a text-form error. */
    readonly code: number | undefined,
    /** The raw text after the colon, for a modem set to verbose errors. */
    readonly detail?: string,
  ) {
    super(`${command}: ${describeAtError(kind, code, detail)}`);
  }

  /** "+CMS ERROR 38: network out of order", as a send failure reports it. */
  get description(): string {
    return describeAtError(this.kind, this.code, this.detail);
  }

  /** What a send refused this way reports to the gateway, which decides from it whether to retry. */
  get sendErrorCode(): SendErrorCode {
    if (this.kind === '+CMS ERROR' && this.code !== undefined) return cmsErrorCode(this.code);
    if (this.kind === '+CME ERROR' && this.code !== undefined) return CME_SEND_ERRORS.get(this.code) ?? 'unknown_error';
    // A plain ERROR, or a text-form one, says only that the modem refused: as Android's generic failure.
    return 'generic_failure';
  }
}

// The +CME ERRORs a modem may give to AT+CMGS instead of a +CMS ERROR: the SIM's and the network's.
const CME_SEND_ERRORS: ReadonlyMap<number, SendErrorCode> = new Map([
  [0, 'radio_unavailable'],
  [3, 'radio_unavailable'],
  [10, 'sim_unavailable'],
  [11, 'sim_unavailable'],
  [12, 'sim_unavailable'],
  [13, 'sim_unavailable'],
  [14, 'sim_unavailable'],
  [15, 'sim_unavailable'],
  [30, 'no_service'],
  [31, 'network_timeout'],
  [100, 'generic_failure'],
]);

/** The modem said nothing conclusive in time: it is treated as hung. */
export class AtTimeoutError extends Error {
  override readonly name = 'AtTimeoutError';

  constructor(
    readonly command: string,
    readonly timeoutMs: number,
  ) {
    super(`${command}: no answer within ${timeoutMs} ms`);
  }
}

/** The port closed (unplugged, stopped, recovering) before the command finished. */
export class AtChannelClosedError extends Error {
  override readonly name = 'AtChannelClosedError';
}

function describeAtError(kind: AtCommandError['kind'], code: number | undefined, detail: string | undefined): string {
  if (kind === 'ERROR') return 'ERROR';
  if (code === undefined) return `${kind}: ${detail ?? 'unknown'}`;
  const text = kind === '+CMS ERROR' ? cmsErrorText(code) : cmeErrorText(code);
  return `${kind} ${code}: ${text}`;
}
