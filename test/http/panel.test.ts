// The control panel is served by the gateway itself at /: one page naming its bundled assets by
// digest, every asset from the gateway (nothing from a CDN), under a content security policy
// that allows only the gateway's own files; assets are cached for good, the page never.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';

describe('control panel: the page and its assets', () => {
  const fx = useGateway({ tenant: 'none' });

  async function page(): Promise<{ response: Response; html: string }> {
    const response = await fetch(`${fx.baseUrl}/`);
    return { response, html: await response.text() };
  }

  it('when / is asked, then it answers the panel page, not cached, with a CSP that allows only its own origin', async () => {
    const { response, html } = await page();
    expect(response.status).to.equal(200);
    expect(response.headers.get('content-type')).to.match(/^text\/html/);
    expect(response.headers.get('cache-control')).to.equal('no-cache');
    const csp = response.headers.get('content-security-policy') ?? '';
    expect(csp).to.contain("default-src 'self'");
    expect(csp).to.contain("script-src 'self'");
    expect(csp).to.contain("frame-ancestors 'none'");
    expect(csp).not.to.contain('unsafe-inline');
    expect(response.headers.get('x-content-type-options')).to.equal('nosniff');
    // Every script and stylesheet the page names is the gateway's own.
    const urls = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((found) => found[1]!).filter((url) => !url.startsWith('data:'));
    expect(urls.length).to.be.at.least(2);
    for (const url of urls) expect(url, url).to.match(/^\/panel\/assets\/[A-Za-z0-9_-]+\.(js|css)$/);
    expect(html).not.to.match(/<script(?![^>]*\bsrc=)[^>]*>/);
  });

  it('when the page names its script and stylesheet, then both are served with their types and cached as immutable', async () => {
    const { html } = await page();
    for (const [, url, ext] of html.matchAll(/"(\/panel\/assets\/[A-Za-z0-9_-]+\.(js|css))"/g)) {
      const asset = await fetch(`${fx.baseUrl}${url!}`);
      expect(asset.status, url).to.equal(200);
      expect(asset.headers.get('content-type')).to.match(ext === 'js' ? /^text\/javascript/ : /^text\/css/);
      expect(asset.headers.get('cache-control')).to.equal('public, max-age=31536000, immutable');
      expect((await asset.arrayBuffer()).byteLength).to.be.above(100);
    }
  });

  it('when an asset that was not built is asked, or a path that tries to leave the folder, then it is 404', async () => {
    for (const path of ['/panel/assets/nope.js', '/panel/assets/..%2F..%2Fpackage.json', '/panel/assets/%2e%2e/index.html', '/panel/assets/']) {
      const response = await fetch(`${fx.baseUrl}${path}`);
      expect(response.status, path).to.equal(404);
      await response.arrayBuffer();
    }
  });

  it('when the API is asked without a session or key, then the page still loads (it shows the login form) and the API answers 401', async () => {
    expect((await page()).response.status).to.equal(200);
    expect((await fetch(`${fx.baseUrl}/api/ext/v1/session`)).status).to.equal(401);
  });
});
