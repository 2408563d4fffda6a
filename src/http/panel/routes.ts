// The control panel at /: one HTML page and its bundled assets from dist/panel (built by
// scripts/panel-build.js during `npm ci` and before `serve`). The page talks to the Extended
// API with the session cookie; nothing here knows any rule of the gateway.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type Router from '@koa/router';
import { AppError } from '../../common/errors.ts';

const ASSET_TYPES: Record<string, string> = {
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  map: 'application/json; charset=utf-8',
};

// Only the page's own files, from 'self': no inline script, no framing, no third party.
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join('; ');

interface PanelFiles {
  builtAt: number;
  index: Buffer;
  assets: Map<string, { content: Buffer; type: string }>;
}

export function mountPanel(router: Router, distDir = findPanelDist()): void {
  let files: PanelFiles | undefined;
  // Read on first use, and again only when a new build replaced them (while working on the panel).
  const load = (): PanelFiles | undefined => {
    let builtAt: number;
    try {
      builtAt = statSync(join(distDir, 'index.html')).mtimeMs;
    } catch {
      return undefined;
    }
    if (files?.builtAt === builtAt) return files;
    const assets = new Map<string, { content: Buffer; type: string }>();
    for (const name of readdirSync(join(distDir, 'assets'))) {
      const type = ASSET_TYPES[name.slice(name.lastIndexOf('.') + 1)];
      if (type) assets.set(name, { content: readFileSync(join(distDir, 'assets', name)), type });
    }
    return (files = { builtAt, index: readFileSync(join(distDir, 'index.html')), assets });
  };

  router.get('/', (ctx) => {
    const panel = load();
    ctx.set('Content-Security-Policy', CONTENT_SECURITY_POLICY);
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Referrer-Policy', 'same-origin');
    ctx.set('X-Frame-Options', 'DENY');
    // The page names its assets by digest: it must be fetched fresh after an upgrade.
    ctx.set('Cache-Control', 'no-cache');
    ctx.type = 'text/html; charset=utf-8';
    if (!panel) {
      ctx.status = 503;
      ctx.body = '<!doctype html><title>Panel not built</title><p>The control panel has not been built. Run <code>npm run build</code> (or start the gateway with <code>npm start</code>, which builds it).</p>';
      return;
    }
    ctx.body = panel.index;
  });

  router.get('/panel/assets/:name', (ctx) => {
    const asset = (files ?? load())?.assets.get(ctx.params.name ?? '');
    // Thrown, not left unanswered: an unanswered matched route would read as a wrong method (405).
    if (!asset) throw new AppError('not_found', 'no such panel asset');
    ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.type = asset.type;
    ctx.body = asset.content;
  });
}

/** dist/panel of this installation, from src/ (tsx) or dist/src/ (compiled) alike. */
function findPanelDist(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return join(dir, 'dist', 'panel');
}
