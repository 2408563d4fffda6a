#!/usr/bin/env node
// The package's command. The gateway is TypeScript run through tsx's loader, so there is no
// build step between a checkout and a running gateway.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/index.ts');
