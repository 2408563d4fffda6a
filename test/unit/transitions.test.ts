// The statuses an SMS passes through when a device reports a later one (src/modules/messages/
// transitions.ts): a report may skip statuses (delivered before sent), never goes back, and a
// report that changes nothing yields nothing.
import { expect } from 'chai';
import { transitionPath } from '../../src/modules/messages/transitions.ts';
import { SMS_STATUSES, type SmsStatus } from '../../src/modules/messages/status.ts';

describe('transitionPath', () => {
  // Every move that changes something; every other pair of statuses changes nothing.
  const MOVES: Partial<Record<`${SmsStatus}->${SmsStatus}`, SmsStatus[]>> = {
    'pending->processing': ['processing'],
    'pending->sent': ['processing', 'sent'],
    'pending->failed_send': ['processing', 'failed_send'],
    'pending->delivered': ['processing', 'sent', 'delivered'],
    'pending->undelivered': ['processing', 'sent', 'undelivered'],
    'pending->failed_delivery': ['processing', 'sent', 'failed_delivery'],
    'processing->sent': ['sent'],
    'processing->failed_send': ['failed_send'],
    'processing->delivered': ['sent', 'delivered'],
    'processing->undelivered': ['sent', 'undelivered'],
    'processing->failed_delivery': ['sent', 'failed_delivery'],
    'sent->delivered': ['delivered'],
    'sent->undelivered': ['undelivered'],
    'sent->failed_delivery': ['failed_delivery'],
  };

  for (const from of SMS_STATUSES) {
    describe(`when the SMS is ${from}`, () => {
      it('then each report yields exactly the statuses it passes through, or nothing', () => {
        for (const to of SMS_STATUSES) {
          expect(transitionPath(from, to), `${from} -> ${to}`).to.deep.equal(MOVES[`${from}->${to}`] ?? []);
        }
      });
    });
  }
});
