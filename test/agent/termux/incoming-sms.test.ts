// Received SMS, found by reading the inbox with termux-sms-list: each handed over once, oldest
// first; the cursor moves only once the agent took an SMS, and survives a restart.
import { expect } from 'chai';
import { createTermuxRadio } from '../../../agent/src/radio/termux/index.ts';
import type { Radio } from '../../../agent/src/radio/radio.ts';
import { inboxRow, RecordingHandlers, TermuxPhone, TestMemory, type InboxRow } from '../support/termux-standin.ts';

const INBOX_CURSOR = 'termux.inbox';

describe('Termux radio: incoming SMS', () => {
  let phone: TermuxPhone;
  let memory: TestMemory;
  let radios: Radio[];

  beforeEach(async () => {
    phone = await TermuxPhone.create();
    memory = new TestMemory();
    radios = [];
  });

  afterEach(async () => {
    for (const radio of radios) await radio.stop();
    await phone.remove();
  });

  async function startRadio(handlers: RecordingHandlers, options = {}): Promise<Radio> {
    const radio = createTermuxRadio(phone.options(options));
    radios.push(radio);
    await radio.start(handlers, memory);
    return radio;
  }

  /** Starts a radio on an inbox holding `history`, and waits until it took note of it. */
  async function startOn(history: InboxRow[], handlers: RecordingHandlers, options = {}): Promise<Radio> {
    await phone.setInbox(history);
    const noted = memory.nextWrite(INBOX_CURSOR);
    const radio = await startRadio(handlers, options);
    await noted;
    return radio;
  }

  describe('when the agent runs for the first time on a phone with SMS in its inbox', () => {
    it('then those are not handed over, and the next one that arrives is', async () => {
      const handlers = new RecordingHandlers();
      const history = [inboxRow(1, '+491700000001', 'old one'), inboxRow(2, '+491700000002', 'old two')];
      await startOn(history, handlers);

      await phone.setInbox([...history, inboxRow(3, '+491700000003', 'new', '2024-05-01 10:05:30')]);
      await handlers.until(() => handlers.sms.length === 1, 'the new SMS');

      expect(handlers.sms.map(({ phone, message }) => ({ phone, message }))).to.deep.equal([{ phone: '+491700000003', message: 'new' }]);
      expect(handlers.sms[0]?.receivedAt.getTime()).to.equal(new Date(2024, 4, 1, 10, 5, 30).getTime());
      expect(handlers.sms[0]?.id).to.match(/^sms-3-[0-9a-f]{8}$/);
    });
  });

  describe('when several SMS arrive between two reads', () => {
    it('then they are handed over oldest first, each once', async () => {
      const handlers = new RecordingHandlers();
      const history = [inboxRow(1, '+491700000001', 'old')];
      await startOn(history, handlers);

      const arrived = [inboxRow(4, '+491700000004', 'third'), inboxRow(2, '+491700000002', 'first'), inboxRow(3, '+491700000003', 'second')];
      await phone.setInbox([...history, ...arrived]);
      await handlers.until(() => handlers.sms.length === 3, 'three SMS');
      await phone.setInbox([...history, ...arrived, inboxRow(5, '+491700000005', 'fourth')]);
      await handlers.until(() => handlers.sms.length >= 4, 'the fourth SMS');

      expect(handlers.sms.map((sms) => sms.message)).to.deep.equal(['first', 'second', 'third', 'fourth']);
    });
  });

  describe('when more SMS arrived than one read returns', () => {
    it('then earlier pages are read too and none is lost', async () => {
      const handlers = new RecordingHandlers();
      const history = [inboxRow(1, '+491700000001', 'old')];
      await startOn(history, handlers, { pageSize: 2 });

      const arrived = [2, 3, 4, 5, 6].map((id) => inboxRow(id, `+4917000000${id}0`, `message ${id}`));
      await phone.setInbox([...history, ...arrived]);
      await handlers.until(() => handlers.sms.length === 5, 'five SMS');

      expect(handlers.sms.map((sms) => sms.message)).to.deep.equal(['message 2', 'message 3', 'message 4', 'message 5', 'message 6']);
    });
  });

  describe('when the agent restarts with the same memory', () => {
    it('then nothing already handed over comes again, and a new SMS does', async () => {
      const first = new RecordingHandlers();
      const history = [inboxRow(1, '+491700000001', 'old')];
      const radio = await startOn(history, first);
      const handedOver = [...history, inboxRow(2, '+491700000002', 'before restart')];
      await phone.setInbox(handedOver);
      await first.until(() => first.sms.length === 1, 'the SMS before the restart');
      await radio.stop();

      const second = new RecordingHandlers();
      await startRadio(second);
      await phone.setInbox([...handedOver, inboxRow(3, '+491700000003', 'after restart')]);
      await second.until(() => second.sms.length === 1, 'the SMS after the restart');

      expect(second.sms.map((sms) => sms.message)).to.deep.equal(['after restart']);
      expect(second.attempts).to.have.length(1);
    });
  });

  describe('when the agent does not take an SMS (its journal refused it)', () => {
    it('then the cursor stays before it, it is handed over again at the next read, and the next one only after it', async () => {
      const handlers = new RecordingHandlers();
      const history = [inboxRow(1, '+491700000001', 'old')];
      await startOn(history, handlers);
      const cursorBefore = memory.get(INBOX_CURSOR);
      let refusals = 0;
      handlers.refuse = () => {
        if (refusals > 0) return false;
        refusals += 1;
        return true;
      };

      await phone.setInbox([...history, inboxRow(2, '+491700000002', 'refused once'), inboxRow(3, '+491700000003', 'then')]);
      await handlers.until(() => handlers.attempts.length === 1, 'the refused attempt');
      const cursorAfterRefusal = memory.get(INBOX_CURSOR);
      await handlers.until(() => handlers.sms.length === 2, 'both SMS');

      expect(cursorAfterRefusal).to.deep.equal(cursorBefore);
      const [refused, next] = handlers.sms.map((sms) => sms.id);
      expect(handlers.attempts).to.deep.equal([refused, refused, next]);
      expect(handlers.sms.map((sms) => sms.message)).to.deep.equal(['refused once', 'then']);
      expect(handlers.problems.join('\n')).to.contain('journal not writable');
    });
  });

  describe('when the newest SMS was deleted on the phone and Android gives its row id to the next one', () => {
    it('then the next one is still handed over, under a different id', async () => {
      const handlers = new RecordingHandlers();
      const history = [inboxRow(1, '+491700000001', 'old')];
      await startOn(history, handlers);
      await phone.setInbox([...history, inboxRow(2, '+491700000002', 'deleted later')]);
      await handlers.until(() => handlers.sms.length === 1, 'the first SMS');

      await phone.setInbox([...history, inboxRow(2, '+491700000009', 'reused row id')]);
      await handlers.until(() => handlers.sms.length === 2, 'the SMS with the reused row id');

      expect(handlers.sms.map((sms) => sms.message)).to.deep.equal(['deleted later', 'reused row id']);
      expect(handlers.sms[0]?.id).not.to.equal(handlers.sms[1]?.id);
    });
  });
});
