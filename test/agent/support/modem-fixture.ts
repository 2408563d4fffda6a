// One stand-in modem and one modem radio on it, per test, torn down after it (socat included).
import { createModemRadio, type ModemOptions } from '../../../agent/src/radio/modem/index.ts';
import type { Radio } from '../../../agent/src/radio/radio.ts';
import { ModemStandin, type StandinOptions } from './modem-standin.ts';
import { MemoryStub, RadioRecorder } from './radio-recorder.ts';

export interface ModemFixture {
  standin: ModemStandin;
  radio: Radio;
  recorder: RadioRecorder;
  memory: MemoryStub;
}

// Short enough that a hang is noticed quickly, long enough for a loaded machine.
export const TEST_TIMINGS: Partial<ModemOptions> = {
  commandTimeoutMs: 1500,
  sendTimeoutMs: 1500,
  registrationTimeoutMs: 1000,
  recoveryDelayMs: 100,
  readyWaitMs: 5000,
};

export function useModem(): {
  start(options?: { standin?: StandinOptions; radio?: Partial<ModemOptions>; started?: boolean; before?: (standin: ModemStandin) => void }): Promise<ModemFixture>;
} {
  const open: { standin: ModemStandin; radio: Radio }[] = [];

  afterEach(async () => {
    for (const { standin, radio } of open.splice(0)) {
      await radio.stop().catch(() => {});
      await standin.close();
    }
  });

  return {
    async start(options = {}) {
      const standin = await ModemStandin.start(options.standin);
      const radio = createModemRadio({ path: standin.agentPath, ...TEST_TIMINGS, ...options.radio });
      open.push({ standin, radio });
      options.before?.(standin);
      const recorder = new RadioRecorder();
      const memory = new MemoryStub();
      if (options.started !== false) await radio.start(recorder, memory);
      return { standin, radio, recorder, memory };
    },
  };
}
