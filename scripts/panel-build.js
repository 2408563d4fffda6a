// Bundles the control panel (panel/: Preact and TypeScript) into dist/panel with esbuild: one
// script and one stylesheet whose names carry a digest of their content, so the gateway serves
// them as immutable, and an index.html that names them. Everything is local: no CDN, no network.
// Plain JavaScript, like build.js: it runs before anything is compiled.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, readStamp, ROOT, walk } from './source-files.js';

const PANEL = join(ROOT, 'panel');
export const PANEL_DIST = join(ROOT, 'dist', 'panel');
const STAMP = join(PANEL_DIST, '.build-stamp.json');
/** Besides panel/, the panel bundles these: the SMS segment rules it shares with the API. */
const SHARED_INPUTS = ['src/common/sms-segments.ts', 'src/common/characters.ts', 'scripts/panel-build.js'];

/** Builds dist/panel unless it is fresh (or `force`). Returns whether it built. */
export async function ensurePanelBuilt({ force = false } = {}) {
  // dist/ shipped without the sources: what is there is what there is.
  if (!existsSync(join(PANEL, 'src', 'main.tsx'))) return false;
  const sources = panelFingerprint();
  if (!force && readStamp(STAMP)?.sources === sources && existsSync(join(PANEL_DIST, 'index.html'))) return false;
  const esbuild = await import('esbuild');
  const staging = `${PANEL_DIST}.${process.pid}.tmp`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  const result = await esbuild.build({
    entryPoints: { app: join(PANEL, 'src', 'main.tsx'), styles: join(PANEL, 'styles.css') },
    bundle: true,
    format: 'esm',
    target: ['chrome110', 'firefox110', 'safari16'],
    minify: true,
    sourcemap: 'linked',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    entryNames: '[name]-[hash]',
    outdir: join(staging, 'assets'),
    metafile: true,
    logLevel: 'silent',
    tsconfig: join(PANEL, 'tsconfig.json'),
  });
  const outputs = Object.keys(result.metafile.outputs).map((path) => relative(join(staging), join(ROOT, path)));
  const pick = (prefix, ext) => {
    const found = outputs.find((path) => path.startsWith(`assets/${prefix}-`) && path.endsWith(ext));
    if (!found) throw new Error(`the panel build wrote no ${prefix}${ext}`);
    return `/${found.replace(/^assets\//, 'panel/assets/')}`;
  };
  const html = readFileSync(join(PANEL, 'index.html'), 'utf8')
    .replace('{{script}}', pick('app', '.js'))
    .replace('{{stylesheet}}', pick('styles', '.css'));
  writeFileSync(join(staging, 'index.html'), html);
  writeFileSync(join(staging, '.build-stamp.json'), `${JSON.stringify({ sources, builtAt: new Date().toISOString() })}\n`);
  // Swap the whole directory: a gateway reading dist/panel sees the old build, none for a moment,
  // or the new one, never half of one (and keeps serving what it already read).
  rmSync(PANEL_DIST, { recursive: true, force: true });
  mkdirSync(join(ROOT, 'dist'), { recursive: true });
  renameDir(staging, PANEL_DIST);
  return true;
}

/** A digest of every panel source file's path, size and modification time. */
export function panelFingerprint() {
  const entries = [];
  walk(PANEL, entries);
  for (const file of SHARED_INPUTS) if (existsSync(join(ROOT, file))) entries.push(describe(join(ROOT, file)));
  for (const pkg of ['preact', 'qrcode']) {
    const manifest = join(ROOT, 'node_modules', pkg, 'package.json');
    if (existsSync(manifest)) entries.push(`${pkg}@${JSON.parse(readFileSync(manifest, 'utf8')).version}`);
  }
  return createHash('sha256').update(entries.sort().join('\n')).digest('hex');
}

function renameDir(from, to) {
  try {
    rmSync(to, { recursive: true, force: true });
    // Renaming a directory is atomic on one file system.
    renameSync(from, to);
  } catch (error) {
    // Another process building at the same moment swapped in its own build: either is complete.
    rmSync(from, { recursive: true, force: true });
    if (!existsSync(join(to, 'index.html'))) throw error;
  }
}
