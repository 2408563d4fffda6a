import { parseArgs } from 'node:util';
import { CliError, type Output } from './output.ts';

type FlagSpec = Record<string, { type: 'string' | 'boolean'; multiple?: boolean }>;

/** Strict flag parsing: an unknown flag or a missing value is a usage error, not a guess. */
export function parseFlags<O extends FlagSpec>(args: string[], options: O, usage: string, allowPositionals = false) {
  try {
    return parseArgs({ args: negativeNumbersJoined(args, options), options, strict: true, allowPositionals });
  } catch (error) {
    throw new CliError(`${(error as Error).message}\n${usage}`);
  }
}

/**
 * `--limit -1` as `--limit=-1`. Node's parser takes a value that starts with a dash for a
 * forgotten value followed by another flag, and answers in its own words; no flag of this command
 * line is a dash and a digit, so such a value is the flag's, and the command's own check tells
 * what range it takes, as it does for `--limit=-1`.
 */
function negativeNumbersJoined(args: string[], options: FlagSpec): string[] {
  const joined: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    // After "--" everything is a positional, as it is to the parser.
    if (arg === '--') return [...joined, ...args.slice(i)];
    const next = args[i + 1];
    const name = arg.startsWith('--') ? arg.slice(2) : undefined;
    if (name !== undefined && Object.hasOwn(options, name) && options[name]!.type === 'string' && next !== undefined && /^-\d/.test(next)) {
      joined.push(`${arg}=${next}`);
      i++;
    } else {
      joined.push(arg);
    }
  }
  return joined;
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
