// A contacts import is checked row by row, whatever is wrong with a row: a bad tag, name or
// field is that row's error in the preview (as a bad number always was), never a 400 for the
// whole file, and the real import refuses the file naming every wrong row, writing nothing.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { expectError } from '../support/expectations.ts';

const CSV = [
  'name,phone,tags',
  'Anna,+491701234501,vip',
  'Bob,+491701234502,has space;ok',
  'Carla,not a number,',
  'Dora,+491701234504,berlin',
].join('\r\n');

describe('contacts: an import with a bad row', () => {
  const fx = useGateway();

  const postCsv = (path: string, text: string) => fx.tenant.api.request('POST', path, text, { 'content-type': 'text/csv' });

  it('when one row has a bad tag, then the preview answers every row with its own result and the import refuses the file naming each bad row', async () => {
    const preview = await postCsv('/contacts/import?dry_run=true', CSV);
    expect(preview.status, JSON.stringify(preview.body)).to.equal(200);
    const rows = preview.body.data;
    expect(rows.map((row: any) => [row.index, row.valid])).to.deep.equal([[0, true], [1, false], [2, false], [3, true]]);
    expect(rows[0]).to.deep.include({ action: 'create', phone: '+491701234501', tags: ['vip'] });
    expect(rows[1].errors.map((error: any) => error.field)).to.deep.equal(['tags.0']);
    expect(rows[2].errors.map((error: any) => error.field)).to.deep.equal(['phone']);

    const refused = await postCsv('/contacts/import', CSV);
    expectError(refused, 400, 'validation_failed');
    expect(refused.body.error.details.map((detail: any) => detail.field)).to.deep.equal(['contacts.1.tags.0', 'contacts.2.phone']);
    expect((await fx.tenant.api.get('/contacts')).body.data).to.deep.equal([]);
  });

  it('when a JSON row is not a contact at all, then the preview says so for that row alone', async () => {
    const preview = await fx.tenant.api.post('/contacts/import?dry_run=true', {
      contacts: [{ phone: '+491701234501' }, 'a string', { phone: '+491701234502', colour: 'red' }, { phone: '+491701234503', name: 'x'.repeat(101) }],
    });
    expect(preview.status, JSON.stringify(preview.body)).to.equal(200);
    const rows = preview.body.data;
    expect(rows.map((row: any) => row.valid)).to.deep.equal([true, false, false, false]);
    expect(rows[1].errors.map((error: any) => error.field)).to.deep.equal(['']);
    expect(rows[2].errors.map((error: any) => error.field)).to.deep.equal(['colour']);
    expect(rows[3].errors.map((error: any) => error.field)).to.deep.equal(['name']);
    expectError(await fx.tenant.api.post('/contacts/import?dry_run=true', { contacts: [] }), 400, 'validation_failed');
  });
});
