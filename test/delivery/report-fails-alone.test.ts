// A phone's status report that fails for good (here a check the database refuses for one SMS
// only, standing in for a row a report breaks) fails alone: the reports in the same batch beside
// it are applied. Before, the whole batch was refused, and every phone with a report in it was
// disconnected to send its report again.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { nextTask, takeTasks } from '../support/mqtt.ts';

describe('delivery: a status report that fails for good', () => {
  const fx = useGateway();

  it('fails alone: the report submitted in the same batch beside it is applied', async () => {
    const { device, token } = await fx.registerDevice('reporter');
    const raw = await fx.clients.device(device.id, token);
    await takeTasks(raw, device.id);
    const ids: string[] = [];
    for (const message of ['refused by the check', 'fine']) {
      const created = await fx.tenant.api.post('/sms', { phone: '+79161234567', message, device_id: device.id });
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      ids.push(created.body.id as string);
      await nextTask(raw, device.id, created.body.id as string);
    }
    const [refused, fine] = ids as [string, string];

    const db = fx.gateway.services.db;
    await db.raw(`create function test_refuse_one_sms() returns trigger language plpgsql as $$
      begin
        if new.id = '${refused}' then raise exception 'refused for the test' using errcode = 'check_violation'; end if;
        return new;
      end $$`);
    await db.raw('create trigger test_refuse_one_sms before update on sms for each row execute function test_refuse_one_sms()');
    try {
      const ingestor = fx.gateway.services.statusIngestor;
      // Submitted in the same turn of the event loop: one batch.
      const [first, second] = await Promise.allSettled([
        ingestor.submit({ deviceId: device.id, smsId: refused, status: 'processing' }),
        ingestor.submit({ deviceId: device.id, smsId: fine, status: 'processing' }),
      ]);
      expect(first.status).to.equal('rejected');
      expect(second).to.deep.equal({ status: 'fulfilled', value: { outcome: 'applied' } });
    } finally {
      await db.raw('drop trigger test_refuse_one_sms on sms');
      await db.raw('drop function test_refuse_one_sms()');
    }
    const read = async (id: string) => (await fx.tenant.api.get(`/sms/${id}`)).body.history.map((entry: { internal_status: string }) => entry.internal_status);
    expect(await read(fine)).to.deep.equal(['pending', 'processing']);
    expect(await read(refused)).to.deep.equal(['pending']);
  });
});
