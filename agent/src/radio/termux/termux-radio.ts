// The radio of an Android phone running the agent in Termux: sends with termux-sms-send, finds
// received SMS and calls by reading the inbox and the call log every few seconds (Termux:API has no
// way to be told of them), and describes the phone from the battery and telephony commands.
import type { OutgoingSms, Radio, RadioHandlers, RadioMemory, RadioStatus, ReceivedSms, SendResult } from '../radio.ts';
import type { CommandSettings } from './run-termux-command.ts';
import { sendSms } from './send-sms.ts';
import { readInboxPage, type InboxSms } from './sms-inbox.ts';
import { readCallLogPage, type CallLogEntry } from './call-log.ts';
import { LogFollower } from './log-follower.ts';
import { DeviceStatusReader } from './device-status.ts';
import { ProblemOnce } from './problem-once.ts';
import { PollLoop } from './poll-loop.ts';
import { isPermissionRefusal, TermuxHealth } from './termux-health.ts';

export interface TermuxOptions {
  /** How often the inbox and the call log are read, in ms. Default 5000. */
  pollIntervalMs?: number;
  /** How long one termux-* command may take, in ms. Default 20000. */
  commandTimeoutMs?: number;
  /** Directory holding the termux-* commands; default: found on PATH. */
  binDir?: string;
  /** Environment the commands run with; default: the agent's own. */
  env?: NodeJS.ProcessEnv;
  /** Entries read per command from the inbox and the call log. Default 50. */
  pageSize?: number;
  /** Pages read back at most in one poll after the agent was away. Default 20. */
  maxPagesPerPoll?: number;
  /** How long a send refused for a missing permission keeps the radio saying it cannot send. Default 10 min. */
  permissionRecheckMs?: number;
}

/** How often received SMS and calls are read when --poll-interval does not say (its --help and docs/agent-termux.md say it too). */
export const DEFAULT_POLL_INTERVAL_MS = 5_000;

const DEFAULTS = { pollIntervalMs: DEFAULT_POLL_INTERVAL_MS, commandTimeoutMs: 20_000, pageSize: 50, maxPagesPerPoll: 20 };

// Keys in the agent's radio memory. Named after the backend, so switching backends on one state
// directory does not read another radio's cursor.
const INBOX_CURSOR = 'termux.inbox';
const CALL_LOG_CURSOR = 'termux.callLog';

export function createTermuxRadio(options: TermuxOptions = {}): Radio {
  return new TermuxRadio({ ...DEFAULTS, ...withoutUndefined(options) });
}

type Settings = typeof DEFAULTS & Pick<TermuxOptions, 'binDir' | 'env' | 'permissionRecheckMs'>;

class TermuxRadio implements Radio {
  readonly kind = 'termux';
  private readonly commands: CommandSettings;
  private handlers: RadioHandlers | undefined;
  private readonly problems = new ProblemOnce((message) => {
    this.handlers?.problem(message);
    return this.handlers !== undefined;
  });
  private readonly statusReader: DeviceStatusReader;
  private slotCount: number | undefined;
  private loop: PollLoop | undefined;
  private readonly sending = new Set<Promise<SendResult>>();
  private readonly health: TermuxHealth;

  constructor(private readonly settings: Settings) {
    this.health = new TermuxHealth(settings.permissionRecheckMs);
    this.commands = {
      binDir: settings.binDir,
      env: settings.env,
      timeoutMs: settings.commandTimeoutMs,
      // Only Termux:API's own commands say whether the app answers (getprop is Android's).
      ended: (command, error) => {
        if (command.startsWith('termux-')) this.health.commandEnded(error);
      },
    };
    this.statusReader = new DeviceStatusReader(this.commands, this.problems);
  }

  async start(handlers: RadioHandlers, memory: RadioMemory): Promise<void> {
    this.handlers = handlers;
    const followerSettings = {
      pageSize: this.settings.pageSize,
      maxPages: this.settings.maxPagesPerPoll,
      problem: (message: string) => handlers.problem(message),
    };
    const inbox = new LogFollower<InboxSms>(
      {
        name: 'SMS inbox',
        readPage: (offset, limit) => readInboxPage(this.commands, offset, limit),
        key: (sms) => sms.id,
        handOver: (sms) => handlers.incoming(withoutAndroidId(sms)),
      },
      memory,
      INBOX_CURSOR,
      followerSettings,
    );
    const callLog = new LogFollower<CallLogEntry>(
      {
        name: 'call log',
        readPage: (offset, limit) => readCallLogPage(this.commands, offset, limit),
        key: (entry) => entry.key,
        handOver: async (entry) => {
          if (entry.call) await handlers.call(entry.call);
          else this.problems.fail(`call type ${entry.type}`, `call log: calls of type ${entry.type} are not reported`);
        },
      },
      memory,
      CALL_LOG_CURSOR,
      followerSettings,
    );
    this.loop = new PollLoop(this.settings.pollIntervalMs, async () => {
      await this.follow('inbox', inbox);
      await this.follow('call log', callLog);
    });
    this.loop.start();
  }

  async send(sms: OutgoingSms): Promise<SendResult> {
    const sent = sendSms(this.commands, sms, { slotCount: this.slotCount });
    this.sending.add(sent);
    try {
      const result = await sent;
      if (result.ok) this.health.sendTaken();
      else if (result.errorCode === 'radio_unavailable' && isPermissionRefusal(result.error)) this.health.permissionRefused(result.error);
      return result;
    } finally {
      this.sending.delete(sent);
    }
  }

  async status(): Promise<RadioStatus> {
    const { status, slotCount, simState } = await this.statusReader.read();
    if (slotCount !== undefined) this.slotCount = slotCount;
    this.health.simState(simState);
    return { ...status, health: this.health.report() };
  }

  async stop(): Promise<void> {
    await this.loop?.stop();
    this.loop = undefined;
    await Promise.allSettled([...this.sending]);
  }

  // One log failing (a permission not granted yet) must not keep the other from being read.
  private async follow(topic: string, follower: { poll(): Promise<void> }): Promise<void> {
    try {
      await follower.poll();
      this.problems.clear(topic);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      this.problems.fail(topic, `${topic}: ${reason}; trying again every ${this.settings.pollIntervalMs / 1000} s`);
    }
  }
}

function withoutAndroidId(sms: InboxSms): ReceivedSms {
  const { androidId: _unused, ...received } = sms;
  return received;
}

function withoutUndefined<T extends object>(options: T): Partial<T> {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) as Partial<T>;
}
