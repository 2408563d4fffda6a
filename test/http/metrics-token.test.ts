// /metrics on the API port with METRICS_TOKEN: only a scrape that sends the token as a bearer
// token reads it; anyone else who reaches the API port gets 401. Without METRICS_TOKEN (and
// without METRICS_PORT) the page is not served at all.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';

const TOKEN = 'a-scrapers-token-0123456789abcdef';

describe('/metrics with METRICS_TOKEN', () => {
  const fx = useGateway({ config: { metrics: { token: TOKEN, port: undefined, host: '127.0.0.1' } }, tenant: 'once' });
  const scrape = (authorization?: string) => fetch(`${fx.baseUrl}/metrics`, authorization ? { headers: { authorization } } : {});

  it('when a scrape sends no token, another token or an API key, then it is 401 and asks for a bearer token', async () => {
    for (const authorization of [undefined, `Bearer ${TOKEN}x`, `Bearer ${TOKEN.slice(0, -1)}`, `Basic ${Buffer.from(`x:${TOKEN}`).toString('base64')}`, `Bearer ${fx.tenant.key}`]) {
      const response = await scrape(authorization);
      expect(response.status, authorization).to.equal(401);
      expect(response.headers.get('www-authenticate')).to.equal('Bearer realm="metrics"');
      expect(await response.text()).not.to.contain('http_requests_total');
    }
  });

  it('when a scrape sends the token, then it reads the page', async () => {
    const response = await scrape(`Bearer ${TOKEN}`);
    expect(response.status).to.equal(200);
    expect(response.headers.get('content-type')).to.match(/^text\/plain/);
    expect(await response.text()).to.contain('# TYPE http_requests_total counter');
  });
});

describe('/metrics without METRICS_TOKEN or METRICS_PORT', () => {
  const fx = useGateway({ config: { metrics: { token: undefined, port: undefined, host: '127.0.0.1' } }, tenant: 'none' });

  it('when anyone asks for it, then it is not served (404), and the health endpoints answer as before', async () => {
    const response = await fetch(`${fx.baseUrl}/metrics`);
    expect(response.status).to.equal(404);
    expect(await response.text()).not.to.contain('http_requests_total');
    expect((await fetch(`${fx.baseUrl}/healthz`)).status).to.equal(200);
  });
});
