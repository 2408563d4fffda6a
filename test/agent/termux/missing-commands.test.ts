// Without the termux-api package the commands are not there: every use says how to install it.
import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTermuxRadio } from '../../../agent/src/radio/termux/index.ts';
import type { Radio } from '../../../agent/src/radio/radio.ts';
import { RecordingHandlers, TestMemory } from '../support/termux-standin.ts';

const INSTALL_MESSAGE = 'install the Termux:API package (pkg install termux-api) and the Termux:API app';

describe('Termux radio: commands missing', () => {
  let emptyBinDir: string;
  let radio: Radio;
  let handlers: RecordingHandlers;

  beforeEach(async () => {
    emptyBinDir = await mkdtemp(join(tmpdir(), 'termux-empty-bin-'));
    radio = createTermuxRadio({ binDir: emptyBinDir, pollIntervalMs: 20 });
    handlers = new RecordingHandlers();
  });

  afterEach(async () => {
    await radio.stop();
    await rm(emptyBinDir, { recursive: true, force: true });
  });

  describe('when an SMS is sent', () => {
    it('then the send fails with the install message', async () => {
      const result = await radio.send({ smsId: 's', phone: '+491701234567', message: 'hi', simSlot: undefined, statusReport: false });

      expect(result).to.deep.equal({ ok: false, error: `termux-sms-send: command not found: ${INSTALL_MESSAGE} (from F-Droid, like Termux itself)`, errorCode: 'radio_unavailable' });
    });
  });

  describe('when the radio starts and reads the inbox and the call log', () => {
    it('then each is reported once as a problem with the install message', async () => {
      await radio.start(handlers, new TestMemory());
      await handlers.until(() => handlers.problems.length >= 2, 'two problems');

      const logProblems = handlers.problems.filter((problem) => problem.startsWith('inbox') || problem.startsWith('call log'));
      expect(logProblems).to.have.length(2);
      expect(logProblems[0]).to.contain(`termux-sms-list: command not found: ${INSTALL_MESSAGE}`);
      expect(logProblems[1]).to.contain(`termux-call-log: command not found: ${INSTALL_MESSAGE}`);
    });
  });

  describe('when the status is read', () => {
    it('then it still answers, with the type and no SIM', async () => {
      await radio.start(handlers, new TestMemory());

      const status = await radio.status();

      expect(status.type).to.equal('android');
      expect(status.simCards).to.deep.equal([]);
      expect(handlers.problems.join('\n')).to.contain(`termux-battery-status: command not found: ${INSTALL_MESSAGE}`);
    });
  });
});
