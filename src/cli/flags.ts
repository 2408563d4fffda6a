import { parseArgs } from 'node:util';
import { CliError, type Output } from './output.ts';

type FlagSpec = Record<string, { type: 'string' | 'boolean'; multiple?: boolean }>;

/** Strict flag parsing: an unknown flag or a missing value is a usage error, not a guess. */
export function parseFlags<O extends FlagSpec>(args: string[], options: O, usage: string, allowPositionals = false) {
  try {
    return parseArgs({ args, options, strict: true, allowPositionals });
  } catch (error) {
    throw new CliError(`${(error as Error).message}\n${usage}`);
  }
}

type Action = (args: string[], out: Output) => Promise<void>;

/** A command made of actions (`keys create`, `keys list`...): runs the one named first. */
export function withActions(actions: Record<string, Action>, usage: string): Action {
  return (args, out) => {
    const [name, ...rest] = args;
    const action = name === undefined ? undefined : actions[name];
    if (!action) throw new CliError(usage);
    return action(rest, out);
  };
}
