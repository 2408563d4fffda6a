// A command that fails at every poll or heartbeat would fill the operator's log with one line
// every few seconds. Each kind of failure is reported once, and again only after it went away.

export class ProblemOnce {
  private readonly failing = new Set<string>();

  /** `report` says whether anyone heard it: before the radio starts, nobody listens yet. */
  constructor(private readonly report: (message: string) => boolean) {}

  /** Reports `message` unless `topic` is already known to be failing. */
  fail(topic: string, message: string): void {
    if (this.failing.has(topic)) return;
    if (this.report(message)) this.failing.add(topic);
  }

  /** `topic` works again: its next failure is reported. */
  clear(topic: string): void {
    this.failing.delete(topic);
  }
}
