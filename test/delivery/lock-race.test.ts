// PostgreSQL breaks a deadlock by rolling one transaction back whole. When that one is a batch of
// phone status reports, the batch wrote nothing and is applied again, instead of being refused:
// the report is not lost and its SMS moves on. Here a transaction of the test's own takes the
// locks in the opposite order to the batch (the SMS's attempt row, then the SMS row), so that the
// batch, which started waiting first, is the one PostgreSQL picks to roll back.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { nextTask, takeTasks, topic } from '../support/mqtt.ts';
import { eventually } from '../support/eventually.ts';
import { statementWaitsForLock } from '../support/lock-waits.ts';
import { onlyOnPostgres } from '../support/postgres-only.ts';
import { lockSmsAttempts, lockSmsRow } from '../support/test-data.ts';

describe('delivery: a status batch rolled back to break a deadlock', function () {
  // Several connections locking rows against each other: PGlite has one connection and no deadlocks.
  onlyOnPostgres();
  const fx = useGateway();

  it('then it is applied again: the SMS ends sent, with one sent entry in its history', async function () {
    this.timeout(30_000);
    const { device, token } = await fx.registerDevice('racer');
    const raw = await fx.clients.device(device.id, token);
    await takeTasks(raw, device.id);
    const created = await fx.tenant.api.post('/sms', { phone: '+79161234567', message: 'lock race', device_id: device.id });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    const smsId = created.body.id as string;
    const read = async (): Promise<{ history: { internal_status: string }[] }> => (await fx.tenant.api.get(`/sms/${smsId}`)).body;
    const lastStep = (body: { history: { internal_status: string }[] }) => body.history.at(-1)?.internal_status;
    await nextTask(raw, device.id, smsId);
    await raw.publish(topic(device.id, 'status'), JSON.stringify({ sms_id: smsId, status: 'processing' }));
    await eventually('processing', async () => (lastStep(await read()) === 'processing' ? true : undefined));

    const db = fx.gateway.services.db;
    const trx = await db.transaction();
    let reported: Promise<unknown> = Promise.resolve();
    try {
      await lockSmsAttempts(trx, smsId);
      // The batch locks the SMS row, then waits for the attempt row this transaction holds. (The
      // broker acknowledges the report once it is applied: not awaited here, it is what waits.)
      reported = raw.publish(topic(device.id, 'status'), JSON.stringify({ sms_id: smsId, status: 'sent' }));
      await statementWaitsForLock(db, 'sms_attempts');
      // Now this transaction wants the SMS row the batch holds: a deadlock, which the batch (waiting longer) loses.
      await lockSmsRow(trx, smsId);
      await trx.commit();
      await reported;
    } catch (error) {
      await trx.rollback();
      throw error;
    }

    const sent = await eventually('sent', async () => {
      const body = await read();
      return lastStep(body) === 'sent' ? body : undefined;
    }, 10_000);
    expect(sent.history.map((entry) => entry.internal_status)).to.deep.equal(['pending', 'processing', 'sent']);
  });
});
