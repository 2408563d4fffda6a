// What loadConfig says is wrong with an environment: the ConfigError's problems (each naming its
// variable), or none when it accepts it. Any other error is thrown on.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ConfigError, loadConfig } from '../../src/config.ts';

export function configProblems(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

/** What loadConfig says is wrong with an environment, as one text; empty when it accepts it. */
export function configProblemsText(env: Record<string, string>): string {
  return configProblems(env).join('\n');
}

/**
 * The settings named `prefix…` that src/config.ts reads, and those the README's settings table
 * has a row for, each sorted: a test expects the two to be the same list.
 */
export function settingsReadAndDocumented(prefix: string): { read: string[]; documented: string[] } {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  const source = readFileSync(`${root}/src/config.ts`, 'utf8');
  const readme = readFileSync(`${root}/README.md`, 'utf8');
  // Read names are quoted where config.ts reads them ('SMTP_PORT'); a name in a comment or a message is not a setting read.
  const read = new Set([...source.matchAll(new RegExp(`'(${prefix}[A-Z_]*[A-Z])'`, 'g'))].map((match) => match[1]!));
  const documented = new Set([...readme.matchAll(new RegExp(`^\\| \`(${prefix}[A-Z_]+)\` \\|`, 'gm'))].map((match) => match[1]!));
  return { read: [...read].sort(), documented: [...documented].sort() };
}
