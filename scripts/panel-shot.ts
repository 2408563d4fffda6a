// `npx tsx scripts/panel-shot.ts <hash path> <out.png> [--viewer] [--width N]`: logs in to the
// gateway that scripts/panel-preview.ts started and saves a full-page screenshot of one panel
// page, in Debian's Chromium driven by playwright-core. For looking at the panel while working
// on it; the browser tests take their own screenshots.
import { readFileSync } from 'node:fs';
import { chromium } from 'playwright-core';

const [path = '/', out = '.tmp/panel.png'] = process.argv.slice(2).filter((arg) => !arg.startsWith('--') && !/^\d+$/.test(arg));
const viewer = process.argv.includes('--viewer');
const widthAt = process.argv.indexOf('--width');
const width = widthAt > 0 ? Number(process.argv[widthAt + 1]) : 1280;
const preview = JSON.parse(readFileSync(process.env.PANEL_PREVIEW ?? '.tmp/panel-preview.json', 'utf8')) as { url: string; owner: { email: string; password: string }; viewer: { email: string; password: string } };
const login = viewer ? preview.viewer : preview.owner;

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
try {
  const page = await browser.newPage({ viewport: { width, height: 900 } });
  page.on('console', (message) => message.type() === 'error' && process.stderr.write(`console: ${message.text()}\n`));
  page.on('pageerror', (error) => process.stderr.write(`page error: ${error.message}\n`));
  await page.goto(`${preview.url}/`);
  await page.getByLabel('Email').fill(login.email);
  await page.getByLabel('Password', { exact: true }).fill(login.password);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByRole('button', { name: 'Log out' }).waitFor();
  await page.goto(`${preview.url}/#${path}`);
  await page.waitForLoadState('networkidle');
  await page.screenshot({ path: out, fullPage: true });
  process.stdout.write(`${out}\n`);
} finally {
  await browser.close();
}
