// The device agent, served by the gateway it pairs with: GET /agent/install.sh, the script that
// installs it in Termux (docs/agent-termux.md), and GET /agent/sms-gateway-agent.tgz, the package
// it installs (packed with the gateway by scripts/agent-pack.js). A phone then needs nothing but
// this gateway and Termux's own packages: no computer, no npm registry. Neither carries a secret:
// the pairing URL is the script's argument, on the phone.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type Router from '@koa/router';
import type { Context } from 'koa';
import { AppError } from '../../common/errors.ts';
import { TrustedProxies } from '../../common/client-address.ts';
import { requestOrigin } from '../request-origin.ts';
import { shellQuoted } from '../../modules/devices/install-command.ts';

export interface AgentDownloadOptions {
  /** PUBLIC_URL: the address phones reach the gateway at. */
  publicUrl?: string | undefined;
  /** TRUSTED_PROXIES: whose X-Forwarded-Host and X-Forwarded-Proto name that address when PUBLIC_URL is unset. */
  trustedProxies?: TrustedProxies | undefined;
  /** The packed agent; default dist/agent/sms-gateway-agent.tgz of this installation. */
  packageFile?: string;
}

const here = dirname(fileURLToPath(import.meta.url));
const INSTALL_SCRIPT = readFileSync(join(here, 'install.sh'), 'utf8');

export function mountAgentDownload(router: Router, options: AgentDownloadOptions = {}): void {
  const packageFile = options.packageFile ?? findAgentPackage();
  const proxies = options.trustedProxies ?? TrustedProxies.none();
  let packed: { builtAt: number; content: Buffer; etag: string } | undefined;

  router.get('/agent/install.sh', (ctx) => {
    const gateway = gatewayAddress(ctx, options.publicUrl, proxies);
    // Written for the address this request came to (without PUBLIC_URL): no cache may hand it to another.
    ctx.set('Cache-Control', 'no-store');
    ctx.set('X-Content-Type-Options', 'nosniff');
    // text/plain: a browser shows it to be read rather than saving it.
    ctx.type = 'text/plain; charset=utf-8';
    ctx.body = INSTALL_SCRIPT.replace('@GATEWAY@', shellQuoted(gateway));
  });

  router.get('/agent/sms-gateway-agent.tgz', (ctx) => {
    let builtAt: number;
    try {
      builtAt = statSync(packageFile).mtimeMs;
    } catch {
      throw new AppError('not_found', 'the device agent has not been packed: run `npm run build` on the gateway');
    }
    // Read again only when a new build replaced it.
    if (packed?.builtAt !== builtAt) {
      const content = readFileSync(packageFile);
      packed = { builtAt, content, etag: `"${createHash('sha256').update(content).digest('base64url')}"` };
    }
    ctx.set('Cache-Control', 'no-cache');
    ctx.set('ETag', packed.etag);
    ctx.set('Content-Disposition', 'attachment; filename="sms-gateway-agent.tgz"');
    ctx.type = 'application/gzip';
    if (ctx.get('if-none-match') === packed.etag) {
      ctx.status = 304;
      return;
    }
    ctx.body = packed.content;
  });
}

/**
 * Where the script fetches the package: PUBLIC_URL; else the origin the request came to (its Host
 * header, or a trusted proxy's X-Forwarded-Host and -Proto), which is where the phone's curl
 * reached the gateway. A Host that names no valid host is a 400: the script would not work.
 */
function gatewayAddress(ctx: Context, publicUrl: string | undefined, proxies: TrustedProxies): string {
  if (publicUrl) return publicUrl.replace(/\/+$/, '');
  const origin = requestOrigin(ctx, proxies)?.origin;
  if (origin) return origin;
  const message = 'the Host header must name a host (a DNS name or an IP address, with an optional port); or set PUBLIC_URL';
  throw new AppError('validation_failed', message, [{ field: 'Host', in: 'header', message }]);
}

/** dist/agent/sms-gateway-agent.tgz of this installation, from src/ (tsx) or dist/src/ (compiled) alike. */
function findAgentPackage(): string {
  let dir = here;
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return join(dir, 'dist', 'agent', 'sms-gateway-agent.tgz');
}
