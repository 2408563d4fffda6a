// What a feature of one way in hears of status changes (changesCameIn, src/modules/delivery/
// status-change.ts): the stored SMS that came in its way, and, for a batch with none of them,
// no call at all (an SMS sent through the API runs none of SMPP's or Twilio's code).
import { expect } from 'chai';
import { changesCameIn, type SmsStatusChange } from '../../src/modules/delivery/status-change.ts';
import type { SmsWayIn } from '../../src/modules/messages/types.ts';
import type { Executor } from '../../src/storage/database.ts';

function change(id: string, wayIn: SmsWayIn, transient = false): SmsStatusChange {
  return {
    sms: { id, object_id: id, account_id: 'account-1', phone: '+79161234567', message: 'hi', callback_id: null, device_id: null, device_object_id: null, way_in: wayIn },
    from: 'processing',
    path: ['sent'],
    at: new Date('2026-01-01T00:00:00Z'),
    reason: null,
    source: 'device',
    transient,
  };
}

const trx = {} as Executor;

describe('changesCameIn', () => {
  it('when a batch holds SMS of several ways in, then the feature hears only the stored ones of its own, in order', async () => {
    const heard: string[][] = [];
    const hear = changesCameIn('smpp', 0, async (_trx, changes) => {
      heard.push(changes.map((each) => each.sms.id));
      return changes.length;
    });
    const answered = await hear(trx, [change('a', 'smpp'), change('b', 'api'), change('c', 'smpp', true), change('d', 'twilio'), change('e', 'smpp')]);
    expect(heard).to.deep.equal([['a', 'e']]);
    expect(answered).to.equal(2);
  });

  it('when a batch holds no stored SMS of its way in, then the feature is not called and `none` is answered', async () => {
    let called = false;
    const none = Object.freeze([]) as readonly string[];
    const hear = changesCameIn('twilio', none, async () => {
      called = true;
      return ['never'];
    });
    expect(await hear(trx, [change('a', 'api'), change('b', 'twilio', true)])).to.equal(none);
    expect(called).to.equal(false);
  });
});
