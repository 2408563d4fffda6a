#!/usr/bin/env node
// The agent's command. It runs the compiled agent in dist/ (`npm run build` in this package
// makes it; a published package ships it).
import { existsSync } from 'node:fs';

const entry = new URL('../dist/cli/run.js', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write('sms-gateway-agent: not built yet: run `npm run build` in the agent package\n');
  process.exit(1);
}
await import(entry.href);
