// A text-only MMS: POST /mms with a message or a subject and no media is a valid MMS (a group
// text, a subject line, a text longer than an SMS), stored with no parts and handed to the phone
// as a task of kind mms whose parts list is empty; the phone sends it and reports it as any MMS.
import { expect } from 'chai';
import { useGateway } from '../support/use-gateway.ts';
import { nextEvent } from '../support/devices.ts';
import type { SendTask } from '../../src/modules/delivery/task.ts';
import { mmsConfig } from './mms-fixture.ts';

describe('a text-only MMS', () => {
  const fx = useGateway({ config: mmsConfig(() => fx) });

  it('when an MMS has a message and a subject but no media, then it is stored with no parts and the phone sends it', async () => {
    const phone = await fx.connectDevice({ apiUrl: fx.baseUrl });
    const taskArrived = nextEvent(phone, 'task');
    const sent = nextEvent(phone, 'report', (_id, status) => status === 'sent', 10_000);
    const created = await fx.tenant.api.post('/mms', { phones: ['+79161234567', '+79161234568'], subject: 'Friday', message: 'Dinner at 8?', media_ids: [] });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    expect(created.body).to.include({ kind: 'mms', subject: 'Friday', message: 'Dinner at 8?', status: 'pending' });
    expect(created.body.parts).to.deep.equal([]);

    const [task] = (await taskArrived) as [SendTask, boolean];
    expect(task).to.include({ sms_id: created.body.id, kind: 'mms', subject: 'Friday', message: 'Dinner at 8?' });
    expect(task.recipients).to.deep.equal(['+79161234567', '+79161234568']);
    expect(task.parts).to.deep.equal([]);
    await sent;
    const read = await fx.tenant.api.get(`/mms/${created.body.id}`);
    expect(read.status).to.equal(200);
    expect(read.body).to.include({ status: 'sent', kind: 'mms', subject: 'Friday' });
    expect(read.body.parts).to.deep.equal([]);
  });

  it('when an MMS has only a subject and no media_ids at all, then it is accepted; with neither text, subject nor media, then it is a 400 naming media_ids', async () => {
    const subjectOnly = await fx.tenant.api.post('/mms', { phone: '+79161234567', subject: 'Ping' });
    expect(subjectOnly.status, JSON.stringify(subjectOnly.body)).to.equal(201);
    expect(subjectOnly.body).to.include({ kind: 'mms', subject: 'Ping', message: '' });

    const empty = await fx.tenant.api.post('/mms', { phone: '+79161234567', message: '' });
    expect(empty.status).to.equal(400);
    expect(empty.body.error.code).to.equal('validation_failed');
    expect(empty.body.error.details).to.deep.equal([{ field: 'media_ids', in: 'body', message: 'media_ids is empty, and there is no message nor subject' }]);
  });
});
