// docs/delivery.md names the columns of a bulk send as CSV; the gateway is asked which it takes.
// A header with one unknown column is refused with the gateway's own list, which must be the
// documented one, and a CSV with every documented column sends (dry run), each cell read.
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { createWebhook, webhookConfig } from '../support/webhooks.ts';

/** The backquoted names of docs/delivery.md's CSV paragraph, in their order. */
function documentedColumns(): string[] {
  const doc = readFileSync('docs/delivery.md', 'utf8');
  const paragraph = /- CSV \(`Content-Type: text\/csv`\)([\s\S]*?)\n\n/.exec(doc)![1]!;
  const sentence = /The columns are ([\s\S]*?)\./.exec(paragraph)![1]!;
  return [...sentence.matchAll(/`([a-z_]+)`/g)].map((match) => match[1]!);
}

describe('bulk CSV: the columns docs/delivery.md names are the ones the gateway reads', () => {
  const fx = useGateway({ config: () => ({ webhooks: webhookConfig() }) });

  it('lists the same columns as the gateway does when it refuses an unknown one', async () => {
    const refused = await fx.tenant.api.request('POST', '/sms/bulk', 'phone,message,colour\n+79161234567,hi,red\n', { 'content-type': 'text/csv' });
    expect(refused.status, JSON.stringify(refused.body)).to.equal(400);
    const listed = /columns: ([a-z_, ]+)$/.exec(refused.body.error.message)![1]!.split(', ');
    expect([...documentedColumns()].sort()).to.deep.equal([...listed].sort());
  });

  it('sends a CSV with every documented column, each cell read into its field', async () => {
    const phone = await fx.taskPhone();
    // callback_id names a webhook of the account, which hears of this SMS alone.
    const receiver = await fx.receiver();
    const callback = (await createWebhook(fx.tenant, receiver.url, ['sms.status_changed'])).webhook.id;
    const cells: Record<string, string> = {
      phone: '+79161234567',
      message: 'every column',
      device_id: phone.id,
      sim_slot: '1',
      callback_id: callback,
      send_at: new Date(Date.now() + 3_600_000).toISOString(),
      valid_until: new Date(Date.now() + 7_200_000).toISOString(),
      ttl: '',
      priority: '5',
      category: 'otp',
    };
    const columns = documentedColumns();
    expect(Object.keys(cells).sort()).to.deep.equal([...columns].sort());
    // valid_until and ttl exclude each other: the second row gives ttl in place of valid_until.
    const second: Record<string, string> = { ...cells, valid_until: '', ttl: '5400', message: 'with a ttl' };
    const first: Record<string, string> = { ...cells, ttl: '' };
    const csv = [columns.join(','), ...[first, second].map((row) => columns.map((column) => row[column]).join(','))].join('\n') + '\n';
    const created = await fx.tenant.api.request('POST', '/sms/bulk', csv, { 'content-type': 'text/csv' });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    for (const sms of created.body.data) {
      expect(sms, JSON.stringify(sms)).to.include({ phone: cells.phone, device_id: phone.id, sim_slot: 1, callback_id: callback, priority: 5, send_at: cells.send_at, category: 'otp' });
    }
    const [untilRow, ttlRow] = created.body.data;
    expect([untilRow.message, ttlRow.message]).to.deep.equal(['every column', 'with a ttl']);
    expect(untilRow.valid_until).to.equal(cells.valid_until);
    // ttl 90 minutes from now: before the first row's valid_until, two hours off.
    expect(Date.parse(ttlRow.valid_until)).to.be.below(Date.parse(cells.valid_until!));
  });
});
