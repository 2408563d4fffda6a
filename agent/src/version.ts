// The agent's version, from its package.json: sent in heartbeats, so the gateway shows what runs where.
import { readFileSync } from 'node:fs';

let cached: string | undefined;

export function agentVersion(): string {
  if (cached) return cached;
  // src/ and dist/ both sit one level below the package.
  const raw = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version?: unknown };
  cached = typeof raw.version === 'string' ? raw.version : 'unknown';
  return cached;
}
