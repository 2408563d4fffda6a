// Health endpoints and the API reference page: GET /healthz (process alive) and GET /readyz
// (database reachable); a readable API reference page at /docs, served from local files (no
// CDN).
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';

describe('health endpoints and /docs', () => {
  const fx = useGateway({ tenant: 'none' });
  let base: string;

  before(() => {
    base = fx.baseUrl;
  });

  describe('GET /healthz', () => {
    it('when the process runs, then it answers 200 without a key', async () => {
      const response = await fetch(`${base}/healthz`);
      expect(response.status).to.equal(200);
      expect(await response.json()).to.deep.equal({ status: 'ok' });
    });
  });

  describe('GET /readyz', () => {
    it('when the database answers, then it answers 200 with checks.database ok, without a key', async () => {
      const response = await fetch(`${base}/readyz`);
      expect(response.status).to.equal(200);
      const body = (await response.json()) as { status: string; checks: Record<string, string> };
      expect(body.status).to.equal('ok');
      expect(body.checks.database).to.equal('ok');
      for (const [name, state] of Object.entries(body.checks)) expect(state, name).to.equal('ok');
    });

    it('when the database is gone, then it answers 503 with checks.database failing, while /healthz stays 200', async () => {
      const doomed = await fx.startGateway();
      try {
        const url = `http://127.0.0.1:${doomed.httpPort}`;
        expect((await fetch(`${url}/readyz`)).status).to.equal(200);
        await doomed.services.db.destroy();
        const response = await fetch(`${url}/readyz`);
        expect(response.status).to.equal(503);
        const body = (await response.json()) as { status: string; checks: Record<string, string> };
        expect(body.status).to.not.equal('ok');
        expect(body.checks.database).to.equal('failing');
        expect((await fetch(`${url}/healthz`)).status).to.equal(200);
      } finally {
        await doomed.stop();
      }
    });
  });

  describe('GET /docs', () => {
    describe('when the reference page is fetched without a key', () => {
      let html: string;
      let assets: string[];

      before(async () => {
        const response = await fetch(`${base}/docs`);
        expect(response.status).to.equal(200);
        expect(response.headers.get('content-type')).to.match(/^text\/html/);
        html = await response.text();
        // Every URL the page makes the browser load: scripts, stylesheets, images, icons, frames.
        assets = [...html.matchAll(/<(?:script|link|img|iframe|source)\b[^>]*?\s(?:src|href)\s*=\s*["']([^"']+)["']/gi)].map((m) => m[1]!);
      });

      it('then it is an HTML page that loads the API reference', () => {
        expect(html).to.match(/<html[\s>]/i);
        expect(html).to.contain('/api/ext/v1/openapi.json');
        expect(assets.some((asset) => asset.endsWith('.js'))).to.equal(true);
        expect(assets.some((asset) => asset.endsWith('.css'))).to.equal(true);
      });

      it('then every asset it references is local: no other host, no protocol-relative URL', () => {
        expect(assets).to.not.be.empty;
        for (const asset of assets) {
          expect(asset, asset).to.not.match(/^(?:[a-z][a-z0-9+.-]*:|\/\/)/i);
        }
        expect(html).to.not.match(/(?:src|href)\s*=\s*["']\s*(?:https?:)?\/\//i);
        expect(html).to.not.match(/@import\s+(?:url\()?["']?(?:https?:)?\/\//i);
      });

      it('then every asset it references is served 200 with its content type', async () => {
        for (const asset of assets) {
          const response = await fetch(new URL(asset, `${base}/docs`));
          expect(response.status, asset).to.equal(200);
          const type = response.headers.get('content-type') ?? '';
          if (/\.css(?:\?|$)/.test(asset)) expect(type, asset).to.match(/^text\/css/);
          else if (/\.m?js(?:\?|$)/.test(asset)) expect(type, asset).to.match(/^(?:text|application)\/javascript/);
          expect((await response.arrayBuffer()).byteLength, asset).to.be.above(0);
        }
      });

      it('then its own script loads the document from this server, not from another host', async () => {
        for (const asset of assets.filter((a) => /\.m?js(?:\?|$)/.test(a) && !/swagger-ui-bundle/.test(a))) {
          const script = await (await fetch(new URL(asset, `${base}/docs`))).text();
          expect(script, asset).to.not.match(/https?:\/\//);
        }
      });
    });

    describe('when a file that is not one of the page\'s assets is asked for', () => {
      it('then it is not served', async () => {
        for (const path of ['/docs/assets/%2e%2e/%2e%2e/package.json', '/docs/assets/package.json', '/docs/assets/..%2f..%2fpackage.json']) {
          const response = await fetch(`${base}${path}`);
          expect(response.status, path).to.equal(404);
        }
      });
    });
  });
});
