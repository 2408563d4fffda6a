// The network a simulated phone dials USSD codes on: a few canned services, so that a USSD
// session can be tried end to end without a SIM card.
//   *100#  the balance, at once: "Balance: 12.34 EUR"
//   *111#  a menu that asks for a reply (1 balance, 2 data bundles with a second menu, 3 exit)
//   *#06#  the phone's IMEI
//   anything else fails, as a network answers a code it does not know.
import { deviceTopic } from '../../broker/topics.ts';

export interface UssdRequestIn {
  session_id: string;
  step: number;
  action: 'dial' | 'reply' | 'cancel';
  code?: string;
  text?: string;
}

export type UssdAnswerOut =
  | { session_id: string; step: number; status: 'waiting_reply' | 'completed'; message: string }
  | { session_id: string; step: number; status: 'failed'; error: string };

export const SIMULATED_BALANCE = 'Balance: 12.34 EUR';
const MAIN_MENU = 'Main menu\n1. Balance\n2. Data bundles\n3. Exit';
const BUNDLE_MENU = 'Data bundles\n1. 1 GB - 5.00 EUR\n2. 5 GB - 15.00 EUR';

type Screen = 'main' | 'bundles';

type Answer = { status: 'waiting_reply' | 'completed'; message: string; next?: Screen } | { status: 'failed'; error: string };

function dial(code: string): Answer {
  if (code === '*100#') return { status: 'completed', message: SIMULATED_BALANCE };
  if (code === '*111#') return { status: 'waiting_reply', message: MAIN_MENU, next: 'main' };
  if (code === '*#06#') return { status: 'completed', message: 'IMEI: 350000000000000' };
  return { status: 'failed', error: 'unknown application' };
}

function choose(screen: Screen, text: string): Answer {
  const choice = text.trim();
  if (screen === 'main') {
    if (choice === '1') return { status: 'completed', message: SIMULATED_BALANCE };
    if (choice === '2') return { status: 'waiting_reply', message: BUNDLE_MENU, next: 'bundles' };
    if (choice === '3') return { status: 'completed', message: 'Goodbye' };
  } else {
    if (choice === '1') return { status: 'completed', message: 'You bought 1 GB. Balance: 7.34 EUR' };
    if (choice === '2') return { status: 'completed', message: 'Not enough credit for 5 GB. Balance: 12.34 EUR' };
  }
  return { status: 'completed', message: 'Invalid choice' };
}

/** One phone's USSD sessions: what each request gets as an answer; a repeated request gets the same answer again. */
export class SimulatedUssd {
  private readonly screens = new Map<string, Screen>();
  private readonly answered = new Map<string, UssdAnswerOut>();

  constructor(private readonly deviceId: string) {}

  get requestTopic(): string {
    return deviceTopic(this.deviceId.toLowerCase(), 'ussd');
  }

  get answerTopic(): string {
    return deviceTopic(this.deviceId, 'ussd_status');
  }

  /** The answer to a request's payload; undefined when there is nothing to say (a cancel, junk). */
  answer(payload: Buffer): UssdAnswerOut | undefined {
    let request: UssdRequestIn;
    try {
      request = JSON.parse(payload.toString('utf8')) as UssdRequestIn;
    } catch {
      return undefined;
    }
    const key = `${request.session_id}/${request.step}`;
    const repeated = this.answered.get(key);
    if (repeated) return repeated;
    let answer: Answer | undefined;
    if (request.action === 'dial' && typeof request.code === 'string') answer = dial(request.code);
    else if (request.action === 'reply' && typeof request.text === 'string') {
      const screen = this.screens.get(request.session_id);
      answer = screen ? choose(screen, request.text) : { status: 'failed', error: 'no session open' };
    }
    if (!answer) {
      this.screens.delete(request.session_id);
      return undefined;
    }
    if (answer.status === 'waiting_reply' && answer.next) this.screens.set(request.session_id, answer.next);
    else this.screens.delete(request.session_id);
    const out: UssdAnswerOut =
      answer.status === 'failed'
        ? { session_id: request.session_id, step: request.step, status: 'failed', error: answer.error }
        : { session_id: request.session_id, step: request.step, status: answer.status, message: answer.message };
    this.answered.set(key, out);
    return out;
  }
}
