import { parseArgs } from 'node:util';
import { CliError } from './output.ts';

type FlagSpec = Record<string, { type: 'string' | 'boolean' }>;

/** Strict flag parsing: an unknown flag or a missing value is a usage error, not a guess. */
export function parseFlags<O extends FlagSpec>(args: string[], options: O, usage: string, allowPositionals = false) {
  try {
    return parseArgs({ args, options, strict: true, allowPositionals });
  } catch (error) {
    throw new CliError(`${(error as Error).message}\n${usage}`);
  }
}
