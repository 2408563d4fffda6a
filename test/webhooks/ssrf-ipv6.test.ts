// The SSRF guard's address classification: IPv6 forms that carry a loopback or private IPv4
// address, and IPv6 ranges that are not public unicast, are refused like the address they stand
// for: at creation (400 invalid_webhook_url) and by the classifier the send path uses. Ranges
// come from ipaddr.js, not from a list of our own.
import { expect } from 'chai';
import type { Gateway } from '../../src/gateway.ts';
import { refusedRange } from '../../src/modules/webhooks/outbound/address-classification.ts';
import { DestinationGuard } from '../../src/modules/webhooks/outbound/destination-guard.ts';
import { startGateway } from '../support/gateway.ts';
import { createTenant, type Tenant } from '../support/tenant.ts';
import { detailFields, expectError } from '../support/expectations.ts';
import { dropWebhooks, webhookConfig } from '../support/webhooks.ts';

/**
 * [address as written in a URL, what the refusal must name]. The first four are the forms the
 * earlier guard let through.
 */
const REFUSED: [host: string, why: RegExp][] = [
  ['[::127.0.0.1]', /loopback.*IPv4-compatible/],
  ['[::ffff:0:127.0.0.1]', /loopback.*IPv4-translated/],
  ['[2002:7f00:1::]', /loopback.*6to4/],
  ['[fec0::1]', /site-local/],
  ['[::ffff:127.0.0.1]', /loopback.*IPv4-mapped/],
  ['[::ffff:7f00:1]', /loopback.*IPv4-mapped/],
  ['[64:ff9b::7f00:1]', /loopback.*NAT64/],
  ['[64:ff9b::a00:1]', /private.*NAT64/],
  ['[64:ff9b:1::1]', /reserved/],
  ['[2002:a00:1::1]', /private.*6to4/],
  ['[2002:a9fe:a9fe::]', /link-local.*6to4/],
  // Teredo: the client address is stored inverted (127.0.0.1 -> 80ff:fffe).
  ['[2001:0:4136:e378:8000:63bf:80ff:fffe]', /loopback.*Teredo/],
  ['[::]', /unspecified/],
  ['[::1]', /loopback/],
  ['[fe80::1]', /link-local/],
  ['[fc00::1]', /private/],
  ['[fd12:3456::1]', /private/],
  ['[ff02::1]', /multicast/],
  ['[2001:db8::1]', /reserved/],
  ['[100::1]', /reserved/],
  ['[4000::1]', /reserved/],
  ['127.0.0.1', /loopback/],
  ['10.1.2.3', /private/],
  ['100.64.0.1', /private/],
  ['169.254.169.254', /link-local/],
  ['192.0.2.1', /reserved/],
  ['255.255.255.255', /broadcast/],
  ['0.0.0.0', /unspecified/],
];

/** Public unicast addresses, in plain and embedded forms. */
const PUBLIC = ['1.1.1.1', '[2606:4700:4700::1111]', '[::ffff:1.1.1.1]', '[2002:101:101::1]', '[64:ff9b::101:101]'];

/** The address as the URL parser normalises it, without brackets: what the guard sees. */
function urlHost(host: string): string {
  return new URL(`http://${host}/`).hostname.replace(/^\[|\]$/g, '');
}

describe('webhooks: SSRF guard, address classification', () => {
  describe('the classifier (what creation and every send check)', () => {
    for (const [host, why] of REFUSED) {
      it(`when the address is ${host}, then it is refused and named ${why}`, () => {
        expect(refusedRange(urlHost(host))).to.match(why);
        expect(new DestinationGuard([]).addressAllowed(urlHost(host))).to.equal(false);
      });
    }
    for (const host of PUBLIC) {
      it(`when the address is ${host}, then it is allowed`, () => {
        expect(refusedRange(urlHost(host))).to.equal(undefined);
        expect(new DestinationGuard([]).addressAllowed(urlHost(host))).to.equal(true);
      });
    }

    it('when WEBHOOK_ALLOWED_HOSTS opens 127.0.0.1, then its IPv6 forms are opened with it, and other loopback addresses stay refused', () => {
      const guard = new DestinationGuard(['127.0.0.1']);
      for (const host of ['127.0.0.1', '[::ffff:127.0.0.1]', '[::127.0.0.1]', '[2002:7f00:1::]']) expect(guard.addressAllowed(urlHost(host)), host).to.equal(true);
      for (const host of ['127.0.0.2', '[::1]', '[2002:7f00:2::]', '[fec0::1]']) expect(guard.addressAllowed(urlHost(host)), host).to.equal(false);
    });

    it('when WEBHOOK_ALLOWED_HOSTS opens an IPv6 range, then addresses in it are allowed and others not', () => {
      const guard = new DestinationGuard(['fd00::/8']);
      expect(guard.addressAllowed('fd00::5')).to.equal(true);
      expect(guard.addressAllowed('fc00::5')).to.equal(false);
    });
  });

  describe('creating a webhook on a gateway without WEBHOOK_ALLOWED_HOSTS', () => {
    let gateway: Gateway;
    let tenant: Tenant;

    before(async () => {
      gateway = await startGateway({ webhooks: webhookConfig({ allowedHosts: [] }) });
    });
    after(async () => gateway.stop());
    beforeEach(async () => {
      tenant = await createTenant(gateway);
    });
    afterEach(async () => dropWebhooks(gateway, [tenant.accountId]));

    for (const [host, why] of REFUSED) {
      it(`when the url is http://${host}/hook, then it answers 400 invalid_webhook_url naming ${why} and creates nothing`, async () => {
        const reply = await tenant.api.post('/webhooks', { url: `http://${host}/hook`, events: ['sms.status_changed'] });
        expectError(reply, 400, 'invalid_webhook_url');
        expect(detailFields(reply)).to.deep.equal(['url']);
        expect(reply.body.error.message).to.match(why);
        expect((await tenant.api.get('/webhooks')).body.data).to.deep.equal([]);
      });
    }

    it('when the url is a public IPv6 address, then it answers 201', async () => {
      const reply = await tenant.api.post('/webhooks', { url: 'http://[2606:4700:4700::1111]/hook', events: ['sms.status_changed'] });
      expect(reply.status, JSON.stringify(reply.body)).to.equal(201);
    });
  });
});
