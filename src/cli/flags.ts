import { parseArgs } from 'node:util';
import { CliError, type Output } from './output.ts';

type FlagSpec = Record<string, { type: 'string' | 'boolean'; multiple?: boolean }>;

/** Strict flag parsing: an unknown flag or a missing value is a usage error, not a guess. */
export function parseFlags<O extends FlagSpec>(args: string[], options: O, usage: string, allowPositionals = false) {
  try {
    return parseArgs({ args: dashValuesRead(args, options, usage), options, strict: true, allowPositionals });
  } catch (error) {
    throw new CliError(`${(error as Error).message}\n${usage}`);
  }
}

/**
 * Values that begin with a dash. Node's parser takes one for a forgotten value followed by another
 * flag, and answers in its own words ("ambiguous"). No flag of this command line is a dash and a
 * digit, so `--limit -1` is read as `--limit=-1`, and the command's own check tells what range it
 * takes. Any other such value (`--message -hello`) could be either: the command says how to write
 * it joined, or that the flag after it left it without one.
 */
function dashValuesRead(args: string[], options: FlagSpec, usage: string): string[] {
  const joined: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    // After "--" everything is a positional, as it is to the parser.
    if (arg === '--') return [...joined, ...args.slice(i)];
    const next = args[i + 1];
    const name = arg.startsWith('--') ? arg.slice(2) : undefined;
    // A flag given last without its value: Node's parser would answer in its own words.
    if (next === undefined && name !== undefined && Object.hasOwn(options, name) && options[name]!.type === 'string') {
      throw new CliError(missingValueProblem(arg, usage));
    }
    // "-" alone is a value to the parser too (stdin, by custom).
    const takesDashValue = name !== undefined && Object.hasOwn(options, name) && options[name]!.type === 'string' && next !== undefined && next.startsWith('-') && next !== '-';
    if (!takesDashValue) {
      joined.push(arg);
    } else if (/^-\d/.test(next)) {
      joined.push(`${arg}=${next}`);
      i++;
    } else {
      throw new CliError(dashValueProblem(arg, next, options));
    }
  }
  return joined;
}

/** What a flag given without a value needs, in the words of the usage (`--account NAME`) when it names one. */
function missingValueProblem(flag: string, usage: string): string {
  const placeholder = new RegExp(`${flag}[ =]([^\\s\\]]+)`).exec(usage)?.[1];
  return `${flag} needs a value${placeholder ? ` (${flag} ${placeholder})` : ''}, and nothing follows it`;
}

/** A secret given on the command line is not printed back, even in an error. */
const SECRET_FLAG = /key|token|pass|secret|pairing|settings/;

function dashValueProblem(flag: string, next: string, options: FlagSpec): string {
  const written = `${flag}=${SECRET_FLAG.test(flag) ? 'VALUE' : next}`;
  const nextName = next.startsWith('--') ? next.slice(2).split('=', 1)[0]! : undefined;
  if (next === '--') return `${flag} needs a value before --`;
  if (nextName !== undefined && Object.hasOwn(options, nextName)) {
    return `${flag} needs a value, but --${nextName} follows it (a value that begins with a dash is written ${written})`;
  }
  return `${flag}: a value that begins with a dash is written joined to its flag, ${written}`;
}

type Action = (args: string[], out: Output) => Promise<void>;

/** A command made of actions (`keys create`, `keys list`...): runs the one named first. */
export function withActions(actions: Record<string, Action>, usage: string): Action {
  return (args, out) => {
    const [name, ...rest] = args;
    const action = name === undefined ? undefined : Object.hasOwn(actions, name) ? actions[name] : undefined;
    if (!action) throw new CliError(`${actionProblem(name, Object.keys(actions))}\n${usage}`);
    return action(rest, out);
  };
}

/** What is wrong with the word where an action belongs: the usage alone leaves a typo to be found. */
export function actionProblem(name: string | undefined, actions: string[]): string {
  const known = actions.join(', ');
  if (name === undefined) return `an action is needed: ${known}`;
  if (name.startsWith('-')) return `the action (${known}) comes first, before ${name}`;
  return `unknown action "${name}": ${known}`;
}

/**
 * A whole-number flag's value (--limit, --devices, --throughput...). Every such flag is refused in
 * the same words, quoting what was given: a value that came from a script's variable is not on
 * the screen otherwise.
 */
export function wholeNumberFlag(flag: string, raw: string, min: number, max: number): number {
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) throw new CliError(`${flag} must be a whole number from ${min} to ${max}, got "${raw}"`);
  return Number(raw);
}

/** A flag whose value is a fraction from 0 to 1 (a rate), refused in the same words as the whole numbers. */
export function fractionFlag(flag: string, raw: string): number {
  const value = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(value) || value < 0 || value > 1) throw new CliError(`${flag} must be a number from 0 to 1, got "${raw}"`);
  return value;
}
