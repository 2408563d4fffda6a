// The radio's state in a heartbeat (what the agent found of its own radio) is checked on its own:
// a malformed one is dropped (the reason logged and counted) and the rest of the heartbeat
// applies, as for an agent that does not say, so that an odd report never hides the battery and
// SIMs, nor stops a device from being handed work.
import { compile, explain } from '../src/common/schema-validation.ts';
import { RadioHealth } from '../src/modules/devices/radio.ts';
import type { Heartbeat } from './payloads.ts';

const validRadio = compile(RadioHealth, 'body');

export interface CheckedRadio {
  /** The radio as it may be recorded; undefined: not said, or dropped. */
  radio: RadioHealth | undefined;
  /** Why it was dropped, when it was. */
  dropped: string | undefined;
}

export function checkRadio(heartbeat: Pick<Heartbeat, 'radio'>): CheckedRadio {
  const said = heartbeat.radio;
  if (said === undefined) return { radio: undefined, dropped: undefined };
  if (validRadio(said)) return { radio: said as RadioHealth, dropped: undefined };
  const first = explain(validRadio.errors ?? [], 'body')[0];
  return { radio: undefined, dropped: `radio dropped: ${first?.message ?? 'does not match its schema'}` };
}
