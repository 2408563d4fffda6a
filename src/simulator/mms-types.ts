import type { OutgoingSms } from '../../agent/src/radio/radio.ts';

export type { MmsPart } from '../../agent/src/protocol/mms.ts';
export type OutgoingSmsMms = NonNullable<OutgoingSms['mms']>;
