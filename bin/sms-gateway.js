#!/usr/bin/env node
// The package's command. It runs the compiled gateway in dist/; when dist/ is missing or older
// than the sources it is compiled first (scripts/build.js, one line on stderr), so a checkout
// needs no set-up besides `npm ci`.
import { ensureBuilt } from '../scripts/build.js';

try {
  await ensureBuilt();
} catch (error) {
  // A service's user may not write the checkout (root's, and read-only under the systemd unit):
  // the sources changed since the last build, which only the checkout's owner can redo. Said in
  // one line of ours, naming what could not be written, rather than the system's error text.
  if (['EROFS', 'EACCES', 'EPERM'].includes(error.code)) {
    const where = error.path ? ` (it may not write ${error.path})` : '';
    process.stderr.write(`sms-gateway: dist/ is older than the sources and this user cannot rebuild it${where}: run \`npm ci && npm run build\` in the checkout as its owner, then start again\n`);
  } else {
    process.stderr.write(`sms-gateway: ${error.message}\n`);
  }
  process.exit(1);
}
await import('../dist/src/cli/index.js');
