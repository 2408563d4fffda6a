// Calls, found by reading the call log with termux-call-log: mapped to the gateway's three
// directions, each handed over once, and none of the log's history on the first run.
import { expect } from 'chai';
import { createTermuxRadio } from '../../../agent/src/radio/termux/index.ts';
import type { Radio } from '../../../agent/src/radio/radio.ts';
import { RecordingHandlers, TermuxPhone, TestMemory, type CallRow } from '../support/termux-standin.ts';

const CALL_LOG_CURSOR = 'termux.callLog';

function callRow(type: string, phoneNumber: string, date: string, duration: string): CallRow {
  return { name: 'UNKNOWN_CALLER', phone_number: phoneNumber, type, date, duration, sim_id: '89490200001234567890' };
}

describe('Termux radio: calls', () => {
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

  async function startOn(history: CallRow[], handlers: RecordingHandlers): Promise<Radio> {
    await phone.setCallLog(history);
    const noted = memory.nextWrite(CALL_LOG_CURSOR);
    const radio = createTermuxRadio(phone.options());
    radios.push(radio);
    await radio.start(handlers, memory);
    await noted;
    return radio;
  }

  describe('when calls of each type are logged after the agent started', () => {
    it('then each is handed over once, oldest first, with its direction, start and duration', async () => {
      const handlers = new RecordingHandlers();
      const history = [callRow('INCOMING', '+491700000001', '2024-05-01 09:00:00', '00:10')];
      await startOn(history, handlers);

      const logged = [
        callRow('INCOMING', '+491700000002', '2024-05-01 10:00:00', '01:05'),
        callRow('OUTGOING', '+491700000003', '2024-05-01 10:10:00', '01:02:03'),
        callRow('MISSED', '+491700000004', '2024-05-01 10:20:00', '00:00'),
        callRow('REJECTED', '+491700000005', '2024-05-01 10:30:00', '00:00'),
        callRow('BLOCKED', '+491700000006', '2024-05-01 10:40:00', '00:00'),
      ];
      await phone.setCallLog([...history, ...logged]);
      await handlers.until(() => handlers.calls.length === 5, 'five calls');
      await phone.setCallLog([...history, ...logged, callRow('INCOMING', '+491700000007', '2024-05-01 11:00:00', '00:01')]);
      await handlers.until(() => handlers.calls.length >= 6, 'the sixth call');

      expect(handlers.calls.map(({ direction, phone, durationSeconds }) => ({ direction, phone, durationSeconds }))).to.deep.equal([
        { direction: 'incoming', phone: '+491700000002', durationSeconds: 65 },
        { direction: 'outgoing', phone: '+491700000003', durationSeconds: 3723 },
        { direction: 'missed', phone: '+491700000004', durationSeconds: 0 },
        { direction: 'missed', phone: '+491700000005', durationSeconds: 0 },
        { direction: 'missed', phone: '+491700000006', durationSeconds: 0 },
        { direction: 'incoming', phone: '+491700000007', durationSeconds: 1 },
      ]);
      expect(handlers.calls[0]?.startedAt.getTime()).to.equal(new Date(2024, 4, 1, 10, 0, 0).getTime());
      expect(handlers.calls[0]?.simSlot).to.equal(undefined);
      expect(new Set(handlers.calls.map((call) => call.id)).size).to.equal(6);
    });
  });

  describe('when the log holds a call of a type Android added later (answered on another device...)', () => {
    it('then it is skipped with one problem, and the calls after it are still handed over', async () => {
      const handlers = new RecordingHandlers();
      await startOn([], handlers);

      await phone.setCallLog([
        callRow('UNKNOWN_TYPE', '+491700000002', '2024-05-01 10:00:00', '00:30'),
        callRow('UNKNOWN_TYPE', '+491700000003', '2024-05-01 10:05:00', '00:30'),
        callRow('OUTGOING', '+491700000004', '2024-05-01 10:10:00', '00:05'),
      ]);
      await handlers.until(() => handlers.calls.length === 1, 'the outgoing call');

      expect(handlers.calls[0]?.phone).to.equal('+491700000004');
      expect(handlers.problems).to.deep.equal(['call log: calls of type UNKNOWN_TYPE are not reported']);
    });
  });

  describe('when the agent restarts with the same memory', () => {
    it('then no call comes again, and a new one does', async () => {
      const first = new RecordingHandlers();
      const history = [callRow('INCOMING', '+491700000001', '2024-05-01 09:00:00', '00:10')];
      const radio = await startOn(history, first);
      const before = [...history, callRow('MISSED', '+491700000002', '2024-05-01 10:00:00', '00:00')];
      await phone.setCallLog(before);
      await first.until(() => first.calls.length === 1, 'the call before the restart');
      await radio.stop();

      const second = new RecordingHandlers();
      const again = createTermuxRadio(phone.options());
      radios.push(again);
      await again.start(second, memory);
      await phone.setCallLog([...before, callRow('OUTGOING', '+491700000003', '2024-05-01 11:00:00', '00:30')]);
      await second.until(() => second.calls.length === 1, 'the call after the restart');

      expect(second.attempts).to.have.length(1);
      expect(second.calls[0]?.phone).to.equal('+491700000003');
      expect(first.calls[0]?.id).not.to.equal(second.calls[0]?.id);
    });
  });

  describe('when the agent does not take a call', () => {
    it('then it is handed over again at the next read, under the same id', async () => {
      const handlers = new RecordingHandlers();
      await startOn([], handlers);
      let refused = false;
      handlers.refuse = () => {
        if (refused) return false;
        refused = true;
        return true;
      };

      await phone.setCallLog([callRow('INCOMING', '+491700000002', '2024-05-01 10:00:00', '00:07')]);
      await handlers.until(() => handlers.calls.length === 1, 'the call');

      expect(handlers.attempts).to.deep.equal([handlers.calls[0]?.id, handlers.calls[0]?.id]);
    });
  });
});
