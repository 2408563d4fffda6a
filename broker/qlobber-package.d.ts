// The parts of qlobber (the topic trees of Aedes' persistence and message emitter) the broker uses.
declare module 'qlobber' {
  export class Qlobber {
    constructor(options?: { separator?: string; wildcard_one?: string; wildcard_some?: string; match_empty_levels?: boolean });
    add(topic: string, value: unknown): this;
    remove(topic: string, value?: unknown): this;
    match(topic: string): unknown[];
  }
}

declare module 'qlobber/aedes/qlobber-sub.js' {
  import { Qlobber } from 'qlobber';
  export default class QlobberSub extends Qlobber {
    subscriptionsCount: number;
  }
}
