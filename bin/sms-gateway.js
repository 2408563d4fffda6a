#!/usr/bin/env node
// The package's command. It runs the compiled gateway in dist/; when dist/ is missing or older
// than the sources it is compiled first (scripts/build.js, one line on stderr), so a checkout
// needs no set-up besides `npm ci`.
import { ensureBuilt } from '../scripts/build.js';

try {
  await ensureBuilt();
} catch (error) {
  process.stderr.write(`sms-gateway: ${error.message}\n`);
  process.exit(1);
}
await import('../dist/src/cli/index.js');
