// Regular expressions written by accounts run on every received SMS. JavaScript's engine
// backtracks, and a pattern like ^(a+)+$ on "aaaa…a!" takes exponential time: run unguarded it
// would stop the whole gateway. Each match runs in a separate V8 context with a time limit
// (node:vm), which interrupts even a match in progress; a pattern that runs out of time counts as
// no match, and the caller records it.
import vm from 'node:vm';

/** Longest pattern a rule may have. */
export const MAX_PATTERN_LENGTH = 500;
/** Longest text a match is run on: an SMS, even a long concatenated one, is shorter. */
const MAX_TEXT_LENGTH = 10_000;

const MATCH = new vm.Script('new RegExp(source, "iu").test(text)');

export type SafeMatch = 'match' | 'no_match' | 'timeout';

export class SafeRegex {
  private readonly context = vm.createContext({ source: '', text: '' });

  constructor(private readonly timeoutMs: number) {}

  /** Whether `pattern` is a valid regular expression (the flags the matcher uses included); its problem otherwise. */
  static problemOf(pattern: string): string | undefined {
    if (pattern.length > MAX_PATTERN_LENGTH) return `must be at most ${MAX_PATTERN_LENGTH} characters`;
    try {
      new RegExp(pattern, 'iu');
      return undefined;
    } catch (error) {
      return `is not a valid regular expression: ${(error as Error).message}`;
    }
  }

  test(pattern: string, text: string): SafeMatch {
    this.context.source = pattern;
    this.context.text = text.slice(0, MAX_TEXT_LENGTH);
    try {
      return MATCH.runInContext(this.context, { timeout: this.timeoutMs }) === true ? 'match' : 'no_match';
    } catch (error) {
      if ((error as { code?: string }).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') return 'timeout';
      return 'no_match';
    }
  }
}
