// The SMPP link's reading of delivery receipts and of the SMSC's command_status.
import { expect } from 'chai';
import { describeStatus, retryOf, statusCode } from '../../src/modules/upstreams/links/smpp/command-status.ts';
import { outcomeOfStat, parseReceiptText, statOfMessageState } from '../../src/modules/upstreams/links/smpp/receipt-text.ts';

describe('SMPP link: receipts and command_status', () => {
  it('reads id, stat and err from the customary receipt text', () => {
    const text = 'id:0A1B2C3D sub:001 dlvrd:001 submit date:2611291200 done date:2611291201 stat:DELIVRD err:000 text:id:fake stat:UNDELIV';
    expect(parseReceiptText(text)).to.deep.equal({ id: '0A1B2C3D', stat: 'DELIVRD', err: '000' });
    expect(parseReceiptText('ID:77 STAT:undeliv ERR:034')).to.deep.equal({ id: '77', stat: 'UNDELIV', err: '034' });
    expect(parseReceiptText('msgid:5 stat:DELIVRD')).to.deep.equal({ id: undefined, stat: 'DELIVRD', err: undefined });
    expect(parseReceiptText('')).to.deep.equal({ id: undefined, stat: undefined, err: undefined });
  });

  it('maps each stat to the gateway\'s outcome, and message_state to its stat', () => {
    const outcomes = Object.fromEntries(['DELIVRD', 'UNDELIV', 'EXPIRED', 'REJECTD', 'DELETED', 'UNKNOWN', 'ACCEPTD', 'ENROUTE', 'NONSENSE'].map((stat) => [stat, outcomeOfStat(stat)]));
    expect(outcomes).to.deep.equal({
      DELIVRD: 'delivered',
      UNDELIV: 'undelivered',
      EXPIRED: 'failed_delivery',
      REJECTD: 'failed_delivery',
      DELETED: 'failed_delivery',
      UNKNOWN: 'failed_delivery',
      ACCEPTD: 'sent',
      ENROUTE: 'sent',
      NONSENSE: undefined,
    });
    expect([1, 2, 3, 4, 5, 6, 7, 8, 9].map(statOfMessageState)).to.deep.equal(['ENROUTE', 'DELIVRD', 'EXPIRED', 'DELETED', 'UNDELIV', 'ACCEPTD', 'UNKNOWN', 'REJECTD', undefined]);
  });

  it('says "never" for an SMS the SMSC will not take and "later" for a moment it cannot', () => {
    expect(retryOf(0x0b), 'invalid destination').to.equal('never');
    expect(retryOf(0x0a), 'invalid source').to.equal('never');
    expect(retryOf(0x104), 'invalid data coding').to.equal('never');
    expect(retryOf(0x08), 'system error').to.equal('later');
    expect(retryOf(0x58), 'throttled').to.equal('later');
    expect(retryOf(0x14), 'queue full').to.equal('later');
    expect(retryOf(0x45), 'submit failed').to.equal('later');
    expect(retryOf(0x400), 'a vendor\'s own').to.equal('later');
    expect(statusCode(0x58)).to.equal('0x00000058');
    expect(describeStatus(0x0e)).to.equal('ESME_RINVPASWD (0x0000000e)');
    expect(describeStatus(0x4ff)).to.equal('0x000004ff');
  });
});
