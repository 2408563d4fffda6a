// /metrics on a listener of its own (METRICS_PORT): the API port no longer serves it, the metrics
// port serves nothing else, and METRICS_TOKEN, when set too, is asked there.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';

const TOKEN = 'a-scrapers-token-0123456789abcdef';

describe('/metrics with METRICS_PORT', () => {
  const fx = useGateway({ config: { metrics: { token: undefined, port: 0, host: '127.0.0.1' } }, tenant: 'none' });
  const metricsBase = () => `http://127.0.0.1:${fx.gateway.metricsPort!}`;

  it('when the metrics port is scraped, then it serves the page; the API port answers 404 for it', async () => {
    expect(fx.gateway.metricsPort).to.be.a('number').and.not.equal(fx.gateway.httpPort);
    const page = await fetch(`${metricsBase()}/metrics`);
    expect(page.status).to.equal(200);
    expect(await page.text()).to.contain('# TYPE http_requests_total counter');
    expect((await fetch(`${fx.baseUrl}/metrics`)).status).to.equal(404);
  });

  it('when anything else is asked of the metrics port, then it is 404 or 405, never the API', async () => {
    for (const path of ['/', '/healthz', '/api/ext/v1/devices', '/metrics/../api/ext/v1/openapi.json']) {
      expect((await fetch(`${metricsBase()}${path}`)).status, path).to.equal(404);
    }
    expect((await fetch(`${metricsBase()}/metrics`, { method: 'POST', body: 'x' })).status).to.equal(405);
  });
});

describe('/metrics with METRICS_PORT and METRICS_TOKEN', () => {
  const fx = useGateway({ config: { metrics: { token: TOKEN, port: 0, host: '127.0.0.1' } }, tenant: 'none' });

  it('when the metrics port is scraped without the token, then it is 401; with it, 200; the API port serves nothing', async () => {
    const url = `http://127.0.0.1:${fx.gateway.metricsPort!}/metrics`;
    const refused = await fetch(url);
    expect(refused.status).to.equal(401);
    expect(refused.headers.get('www-authenticate')).to.equal('Bearer realm="metrics"');
    expect((await fetch(url, { headers: { authorization: `Bearer ${TOKEN}` } })).status).to.equal(200);
    expect((await fetch(`${fx.baseUrl}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).status).to.equal(404);
  });
});
