// The one registry control passes through from one module to another. A module announces what
// happened; the listeners registered in composition hear it, each in up to two ways:
// - in the transaction that wrote the change (or on the database itself when there is none), so
//   that what follows from the change (webhook outbox rows, a device's failure count) commits or
//   fails with it: a failure there fails the change;
// - once the change is committed (wake the webhook sender, hand a phone its next task). A failing
//   listener is logged there, never thrown back into the request that caused the event.
//
// The seam knows no event: each module declares the events it announces (its domain-events.ts), and
// composition (src/event-catalog.ts) joins them into the gateway's catalog. A part that announces
// or hears takes `DomainEvents<M>` for the map M of only the events it uses, so the whole
// gateway's seam is handed to it without the part knowing the rest of the catalog.
import { afterCommit, type Executor } from '../storage/database.ts';

export interface DomainEventListener<P> {
  /** Runs in the transaction that wrote the change; what it writes commits or fails with it. */
  inTransaction?(trx: Executor, payload: P): Promise<void>;
  /** Runs once the change is committed; a failure is logged, never thrown back. */
  committed?(payload: P): void | Promise<void>;
}

/** Event name to payload, for the events a part announces or hears. */
export type EventMap = object;

/** The names of a map's events. */
export type EventName<M extends EventMap> = keyof M & string;

/**
 * One listener per event: what a module hears, written in the module, registered by its feature
 * (src/modules/<name>/feature.ts) with `listenAll`.
 */
export type EventListeners<M extends EventMap> = { [E in EventName<M>]?: DomainEventListener<M[E]> };

export class DomainEvents<M extends EventMap> {
  /** Each event's listeners, in the order registered; typed by `listen`, read back by `of`. */
  private readonly listeners = new Map<string, unknown[]>();

  constructor(private readonly onListenerError: (error: unknown, event: string) => void) {}

  /** Registers a listener; the function returned removes it again (a part that stops before the gateway does). */
  listen<E extends EventName<M>>(event: E, listener: DomainEventListener<M[E]>): () => void {
    const listeners = this.listeners.get(event) ?? [];
    listeners.push(listener);
    this.listeners.set(event, listeners);
    return () => {
      const at = listeners.indexOf(listener);
      if (at >= 0) listeners.splice(at, 1);
    };
  }

  /** Registers one listener per event; the function returned removes them all again. */
  listenAll(listeners: EventListeners<M>): () => void {
    const removals = Object.entries(listeners).map(([event, listener]) => this.listen(event as EventName<M>, listener as DomainEventListener<M[EventName<M>]>));
    return () => removals.forEach((remove) => remove());
  }

  /** Hears the event once it is committed (or as it happens, for an event with no transaction). */
  on<E extends EventName<M>>(event: E, committed: (payload: M[E]) => void | Promise<void>): () => void {
    return this.listen(event, { committed });
  }

  /** Call inside the change's transaction; the committed listeners run once it commits (at once outside a transaction). */
  async written<E extends EventName<M>>(trx: Executor, event: E, payload: M[E]): Promise<void> {
    if (isEmptyBatch(payload)) return;
    await this.inTransaction(trx, event, payload);
    afterCommit(trx, () => void this.emit(event, payload));
  }

  /** The in-transaction listeners only, for writers that run the committed ones themselves (the status ingestor answers devices first). */
  async inTransaction<E extends EventName<M>>(trx: Executor, event: E, payload: M[E]): Promise<void> {
    if (isEmptyBatch(payload)) return;
    for (const listener of [...this.of(event)]) await listener.inTransaction?.(trx, payload);
  }

  /**
   * Runs the committed listeners now: for a change already committed, or an event with no
   * transaction (presence, battery). Each starts in order, at once; the promise settles when the
   * slow ones have, for a caller that must not answer before (a deleted call's file is gone).
   */
  async emit<E extends EventName<M>>(event: E, payload: M[E]): Promise<void> {
    if (isEmptyBatch(payload)) return;
    const running: Promise<void>[] = [];
    // A copy: a listener that removes itself must not make the next one skipped.
    for (const listener of [...this.of(event)]) {
      try {
        const result = listener.committed?.(payload);
        if (result instanceof Promise) running.push(result.catch((error: unknown) => this.onListenerError(error, event)));
      } catch (error) {
        this.onListenerError(error, event);
      }
    }
    await Promise.all(running);
  }

  /** Forgets every listener (the gateway stopping). */
  removeAllListeners(): void {
    this.listeners.clear();
  }

  private of<E extends EventName<M>>(event: E): DomainEventListener<M[E]>[] {
    return (this.listeners.get(event) ?? []) as DomainEventListener<M[E]>[];
  }
}

/** A batch of no changes is no event. */
function isEmptyBatch(payload: unknown): boolean {
  return Array.isArray(payload) && payload.length === 0;
}
