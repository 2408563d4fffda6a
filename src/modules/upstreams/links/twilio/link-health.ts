// Whether a Twilio link can take work, from what its requests came to. An HTTP link has no
// connection to watch, so its state is what the provider last said:
// - connecting until the first answer, ready once the provider takes requests;
// - throttled for as long as a 429's Retry-After asks, then back to what it was;
// - down after the credentials were refused, after FAILURES_TO_DOWN requests in a row got no
//   answer or a 5xx, or when the destination guard refused the provider's address. A down link
//   answers at once (credentials, destination: "never", this link will not take the SMS;
//   unreachable: "later"), except that once its backoff has passed one submission goes out as a
//   probe: its answer brings the link back or keeps it down for a longer backoff. A refused
//   destination has no probe: only new settings (a new link) change it.
import type { LinkState, LinkStatus, SubmitOutcome } from '../link.ts';
import { CREDENTIALS_REFUSED } from './answer.ts';

type Refusal = Extract<SubmitOutcome, { accepted: false }>;

/** Requests in a row that got no answer (or a 5xx) before the link is down. */
export const FAILURES_TO_DOWN = 3;
const UNREACHABLE_BACKOFF = { firstMs: 1_000, maxMs: 60_000 };
const CREDENTIALS_BACKOFF = { firstMs: 60_000, maxMs: 15 * 60_000 };

type DownFor = 'unreachable' | 'credentials' | 'destination';

export class LinkHealth {
  private current: LinkStatus;
  private downFor: DownFor | undefined;
  private retryAt = 0;
  private backoffMs = 0;
  private probing = false;
  private failuresInARow = 0;
  private lastCredentialsCode = '20003';
  private throttle: { timer: NodeJS.Timeout | undefined; resume: LinkState; detail: string | null } | undefined;

  constructor(
    private readonly changed: (status: LinkStatus) => void,
    private readonly now: () => number = Date.now,
  ) {
    this.current = { state: 'connecting', detail: null, since: new Date(this.now()) };
  }

  /**
   * The state as routing reads it: a down link whose backoff has passed (and that is not down for
   * its destination, which only new settings change) shows as connecting, so that the next SMS
   * routed to it is let out as its probe; routing passes a down link by.
   */
  get status(): LinkStatus {
    const { state, detail, since } = this.current;
    if (state === 'down' && this.downFor !== 'destination' && !this.probing && this.now() >= this.retryAt) {
      return { state: 'connecting', detail: `trying again: ${detail ?? 'the link was down'}`, since };
    }
    return this.current;
  }

  /**
   * What to answer at once instead of sending, or undefined when the submission may go out.
   * `claimProbe`: a down link whose backoff has passed lets this submission out as its probe
   * (only one at a time); without it the submission is only told it need not be refused yet.
   */
  refusal(claimProbe: boolean): Refusal | undefined {
    const state = this.current.state;
    if (state === 'closed') return { accepted: false, retry: 'later', code: 'closed', detail: 'the link is closed' };
    if (state !== 'down') return undefined;
    const detail = this.current.detail ?? 'the link is down';
    if (this.downFor === 'destination') return { accepted: false, retry: 'never', code: 'destination_refused', detail };
    const now = this.now();
    if (this.probing || now < this.retryAt) {
      if (this.downFor === 'credentials') return { accepted: false, retry: 'never', code: this.lastCredentialsCode, detail };
      return { accepted: false, retry: 'later', code: 'down', detail, retryAfterMs: Math.max(this.retryAt - now, 0) };
    }
    if (claimProbe) this.probing = true;
    return undefined;
  }

  /** The provider took a request and judged it. */
  working(): void {
    this.probing = false;
    this.failuresInARow = 0;
    this.backoffMs = 0;
    if (this.downFor === 'destination') return;
    this.downFor = undefined;
    this.settle('ready', null);
  }

  /** No answer, or a 5xx. */
  failing(detail: string): void {
    this.probing = false;
    this.failuresInARow++;
    if (this.downFor === 'destination' || this.downFor === 'credentials') return;
    if (this.current.state === 'down' || this.failuresInARow >= FAILURES_TO_DOWN) {
      this.down('unreachable', `the provider failed ${this.failuresInARow} requests in a row; the last: ${detail}`, UNREACHABLE_BACKOFF);
    }
  }

  /** A 429: no request starts for `waitMs`. */
  throttled(waitMs: number, detail: string): void {
    this.probing = false;
    if (this.current.state === 'down' || this.current.state === 'closed') return;
    const resume = this.throttle?.resume ?? this.current.state;
    const resumeDetail = this.throttle?.detail ?? this.current.detail;
    clearTimeout(this.throttle?.timer);
    const throttle = { timer: undefined as NodeJS.Timeout | undefined, resume, detail: resumeDetail };
    // What it resumes is read when the throttle ends: a success meanwhile changes it (settle).
    throttle.timer = setTimeout(() => {
      this.throttle = undefined;
      if (this.current.state === 'throttled') this.set(throttle.resume, throttle.detail);
    }, waitMs);
    // Only the state waits on it (the pacer holds the submissions): it keeps no process alive.
    throttle.timer.unref();
    this.throttle = throttle;
    this.set('throttled', detail);
  }

  credentialsRefused(code: string): void {
    this.probing = false;
    this.lastCredentialsCode = code;
    if (this.downFor === 'destination') return;
    this.down('credentials', CREDENTIALS_REFUSED, CREDENTIALS_BACKOFF);
  }

  /** The destination guard refused the provider's address: down until the settings change. */
  destinationRefused(detail: string): void {
    this.probing = false;
    if (this.current.state === 'closed') return;
    this.downFor = 'destination';
    this.set('down', detail);
  }

  close(): void {
    clearTimeout(this.throttle?.timer);
    this.throttle = undefined;
    this.set('closed', null);
  }

  private down(reason: DownFor, detail: string, backoff: { firstMs: number; maxMs: number }): void {
    // The backoff grows while the reason stays the same; another reason starts its own.
    this.backoffMs = this.downFor === reason && this.backoffMs > 0 ? Math.min(this.backoffMs * 2, backoff.maxMs) : backoff.firstMs;
    this.retryAt = this.now() + this.backoffMs;
    this.downFor = reason;
    clearTimeout(this.throttle?.timer);
    this.throttle = undefined;
    this.set('down', detail);
  }

  /** A state that waits behind a throttle: taken once the throttle ends. */
  private settle(state: LinkState, detail: string | null): void {
    if (this.throttle) {
      this.throttle.resume = state;
      this.throttle.detail = detail;
      return;
    }
    this.set(state, detail);
  }

  private set(state: LinkState, detail: string | null): void {
    if (this.current.state === 'closed') return;
    if (this.current.state === state && this.current.detail === detail) return;
    this.current = { state, detail, since: new Date(this.now()) };
    this.changed(this.current);
  }
}
