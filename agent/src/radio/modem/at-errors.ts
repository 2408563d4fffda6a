// What can go wrong with one AT command, as values the driver can tell apart.
import { cmeErrorText, cmsErrorText } from './error-texts.ts';

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
}

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
