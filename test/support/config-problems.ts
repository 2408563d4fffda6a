// What loadConfig says is wrong with an environment: the ConfigError's problems (each naming its
// variable), or none when it accepts it. Any other error is thrown on.
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
