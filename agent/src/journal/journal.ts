// What the agent must not forget across a restart or a power cut:
// - every task it took, and how far it got: above all that it handed the SMS to the radio, written
//   down (and flushed to disk) before the radio gets it, so that no SMS is ever sent twice;
// - every report not yet acknowledged by the gateway (statuses, received SMS, calls), kept until
//   its QoS 2 publish completes, so that none is lost;
// - every received SMS kept while the gateway does not take them (forwarding off), until it
//   does: the radio forgets an SMS (deletes it from the SIM) once it is kept here;
// - the radio's small values (its read cursor, parts of a long SMS still incomplete).
//
// Kept in memory and, given a directory, in an append-only file of JSON lines, one per change,
// each flushed before the change counts. On open the lines are replayed and written afresh as a
// snapshot (a new file renamed over the old one), which drops what is no longer needed; the same
// happens whenever the file has grown well past what it holds.
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { ReportStatus, SendTask } from '../protocol/messages.ts';
import type { OutboundTopic } from '../protocol/topics.ts';

/**
 * taken: received, not handed to the radio. radio: handed to the radio, no answer yet (after a
 * restart: unknown whether it went out, never handed again). done: the radio answered.
 */
export type TaskStage = 'taken' | 'radio' | 'done';

export interface TaskRecord {
  task: SendTask;
  stage: TaskStage;
  /** The furthest status reported for it. */
  status: ReportStatus;
  /** The parts' message references, for delivery reports; the parts reported delivered so far. */
  references?: number[];
  delivered?: number[];
  /** When it was taken (ms); old finished records are forgotten. */
  takenAt: number;
}

export interface OutboxItem {
  seq: number;
  topic: OutboundTopic;
  payload: string;
}

/** A received SMS kept, not forwarded, while forwarding is off: its payload as the gateway takes it. */
export interface HeldSms {
  id: string;
  payload: string;
}

type Change =
  | { op: 'task'; record: TaskRecord }
  | { op: 'forget'; smsId: string }
  | { op: 'out'; item: OutboxItem }
  | { op: 'acked'; seq: number }
  | { op: 'hold'; sms: HeldSms }
  /**
   * Kept SMS leave the keep and enter the outbox (as `incoming`, under these sequence numbers) in
   * one line: a crash never leaves one in both, nor in neither.
   */
  | { op: 'release'; moved: { id: string; seq: number }[] }
  /** Received SMS taken back from the outbox, unsent, and kept again ahead of those kept since. */
  | { op: 'rehold'; moved: { id: string; seq: number }[] }
  | { op: 'memory'; key: string; value: unknown };

/** How long a finished task is remembered, so that a late repeat of it is answered, not sent. */
const REMEMBER_FINISHED_MS = 7 * 24 * 3600_000;
/** Lines written before the file is rewritten as a snapshot, at least. */
const COMPACT_AFTER_LINES = 10_000;

export class Journal {
  readonly tasks = new Map<string, TaskRecord>();
  readonly outbox = new Map<number, OutboxItem>();
  readonly memory = new Map<string, unknown>();
  /** Received SMS kept while forwarding is off, oldest first (a Map keeps insertion order), by id. */
  readonly held = new Map<string, HeldSms>();
  private nextSeq = 1;
  private fd: number | undefined;
  private linesWritten = 0;

  private constructor(private readonly file: string | undefined) {}

  /** A journal in `dir` (created if missing, mode 0700), or, without one, in memory only. */
  static open(dir?: string, now = Date.now()): Journal {
    const journal = new Journal(dir ? join(dir, 'journal.jsonl') : undefined);
    if (dir) {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      journal.replay();
      journal.forgetOld(now);
      journal.compact();
    }
    return journal;
  }

  putTask(record: TaskRecord): void {
    this.tasks.set(record.task.sms_id, record);
    this.write({ op: 'task', record });
  }

  forgetTask(smsId: string): void {
    if (!this.tasks.delete(smsId)) return;
    this.write({ op: 'forget', smsId });
  }

  /** Keeps a message for the gateway until acknowledged(seq). */
  enqueue(topic: OutboundTopic, payload: string): OutboxItem {
    const item = { seq: this.nextSeq++, topic, payload };
    this.outbox.set(item.seq, item);
    this.write({ op: 'out', item });
    return item;
  }

  acknowledged(seq: number): void {
    if (!this.outbox.delete(seq)) return;
    this.write({ op: 'acked', seq });
  }

  /** Keeps a received SMS until releaseHeld(); one kept already (the radio handing it over again) stays as it is. */
  hold(sms: HeldSms): void {
    if (this.held.has(sms.id)) return;
    this.held.set(sms.id, sms);
    this.write({ op: 'hold', sms });
  }

  /**
   * Moves every kept SMS to the outbox, for the gateway, oldest first; one line and one flush for
   * all of them, however many were kept.
   */
  releaseHeld(): OutboxItem[] {
    if (this.held.size === 0) return [];
    const moved = [...this.held.keys()].map((id) => ({ id, seq: this.nextSeq++ }));
    const items = this.applyRelease(moved);
    this.write({ op: 'release', moved });
    return items;
  }

  /**
   * Takes received SMS not yet sent back from the outbox and keeps them again, in this order and
   * ahead of any kept since (they came before them): forwarding was switched off before their turn.
   */
  holdAgain(moved: { id: string; seq: number }[]): void {
    const taken = moved.filter(({ seq }) => this.outbox.has(seq));
    if (taken.length === 0) return;
    this.applyRehold(taken);
    this.write({ op: 'rehold', moved: taken });
  }

  private applyRehold(moved: { id: string; seq: number }[]): void {
    const since = [...this.held.values()];
    this.held.clear();
    for (const { id, seq } of moved) {
      const item = this.outbox.get(seq);
      if (!item) continue;
      this.outbox.delete(seq);
      this.held.set(id, { id, payload: item.payload });
    }
    for (const sms of since) if (!this.held.has(sms.id)) this.held.set(sms.id, sms);
  }

  private applyRelease(moved: { id: string; seq: number }[]): OutboxItem[] {
    const items: OutboxItem[] = [];
    for (const { id, seq } of moved) {
      const sms = this.held.get(id);
      if (!sms) continue;
      const item: OutboxItem = { seq, topic: 'incoming', payload: sms.payload };
      this.held.delete(id);
      this.outbox.set(seq, item);
      this.nextSeq = Math.max(this.nextSeq, seq + 1);
      items.push(item);
    }
    return items;
  }

  setMemory(key: string, value: unknown): void {
    this.memory.set(key, value);
    this.write({ op: 'memory', key, value });
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  /** Finished tasks older than the memory span are dropped (at open). */
  private forgetOld(now: number): void {
    for (const [id, record] of this.tasks) {
      if (record.stage !== 'radio' && now - record.takenAt > REMEMBER_FINISHED_MS) this.tasks.delete(id);
    }
  }

  private write(change: Change): void {
    if (!this.file) return;
    this.fd ??= openSync(this.file, 'a', 0o600);
    writeSync(this.fd, `${JSON.stringify(change)}\n`);
    // The change counts only once it is on the disk: above all "handed to the radio".
    fsyncSync(this.fd);
    if (++this.linesWritten > Math.max(COMPACT_AFTER_LINES, 4 * (this.tasks.size + this.outbox.size + this.held.size + this.memory.size))) this.compact();
  }

  private replay(): void {
    if (!this.file || !existsSync(this.file)) return;
    const lines = readFileSync(this.file, 'utf8').split('\n');
    for (const [index, line] of lines.entries()) {
      if (line === '') continue;
      let change: Change;
      try {
        change = JSON.parse(line) as Change;
      } catch {
        // Only the last line can be torn (a power cut mid-write); it never counted.
        if (index >= lines.length - 2) break;
        throw new Error(`the journal ${this.file} is damaged at line ${index + 1}`);
      }
      this.apply(change);
    }
  }

  private apply(change: Change): void {
    switch (change.op) {
      case 'task':
        this.tasks.set(change.record.task.sms_id, change.record);
        break;
      case 'forget':
        this.tasks.delete(change.smsId);
        break;
      case 'out':
        this.outbox.set(change.item.seq, change.item);
        this.nextSeq = Math.max(this.nextSeq, change.item.seq + 1);
        break;
      case 'acked':
        this.outbox.delete(change.seq);
        break;
      case 'hold':
        this.held.set(change.sms.id, change.sms);
        break;
      case 'release':
        this.applyRelease(change.moved);
        break;
      case 'rehold':
        this.applyRehold(change.moved);
        break;
      case 'memory':
        this.memory.set(change.key, change.value);
        break;
    }
  }

  /** Writes what is held as a new file and renames it over the old one: never a moment without a whole journal. */
  private compact(): void {
    if (!this.file) return;
    this.close();
    const next = `${this.file}.next`;
    const fd = openSync(next, 'w', 0o600);
    const lines: string[] = [];
    for (const record of this.tasks.values()) lines.push(JSON.stringify({ op: 'task', record }));
    for (const item of this.outbox.values()) lines.push(JSON.stringify({ op: 'out', item }));
    for (const sms of this.held.values()) lines.push(JSON.stringify({ op: 'hold', sms }));
    for (const [key, value] of this.memory) lines.push(JSON.stringify({ op: 'memory', key, value }));
    if (lines.length > 0) writeSync(fd, `${lines.join('\n')}\n`);
    fsyncSync(fd);
    closeSync(fd);
    renameSync(next, this.file);
    this.linesWritten = 0;
  }
}
