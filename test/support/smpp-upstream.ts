// An account's SMPP upstream pointed at a test SMSC, as the upstream tests make it: created
// through the API and, unless told otherwise, waited for until its link is bound.
import { expect } from 'chai';
import { eventually } from './eventually.ts';
import type { ApiClient } from './tenant.ts';
import type { TestSmsc } from './test-smsc.ts';

/** Lets the outbound guard through to providers on 127.0.0.1, where the test SMSC listens. */
export const LOOPBACK_PROVIDERS = ['127.0.0.1'];

/** Creates it (name "carrier" and the SMSC's password unless `settings` say otherwise) and answers its id. */
export async function smppUpstream(api: ApiClient, smsc: TestSmsc, settings: Record<string, unknown> = {}, options: { bound?: boolean } = {}): Promise<string> {
  const body = { name: 'carrier', kind: 'smpp', host: '127.0.0.1', port: smsc.port, system_id: 'gateway', password: smsc.password, ...settings };
  const created = await api.post('/upstreams', body);
  expect(created.status, JSON.stringify(created.body)).to.equal(201);
  const id = created.body.id as string;
  if (options.bound !== false) await eventually(`${String(body.name)} bound`, async () => (await api.get(`/upstreams/${id}`)).body.link.state === 'ready');
  return id;
}
