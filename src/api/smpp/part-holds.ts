// What the unfinished concatenated messages of each account hold on this node, all its binds
// together: one account opening many binds cannot hold more than this, whatever each bind may.
/** Unfinished concatenated messages one account may hold on a node. */
export const MAX_PENDING_MESSAGES_PER_ACCOUNT = 4_000;
/** Text they may hold, in UTF-16 units: about 1,500 messages of 170 characters. */
export const MAX_HELD_UNITS_PER_ACCOUNT = 256 * 1024;

interface Held {
  messages: number;
  units: number;
}

export class PartHolds {
  private readonly byAccount = new Map<string, Held>();

  /** Takes room for `messages` more messages and `units` more text; false (nothing taken) past the account's share. */
  reserve(accountId: string, messages: number, units: number): boolean {
    const held = this.byAccount.get(accountId) ?? { messages: 0, units: 0 };
    if (held.messages + messages > MAX_PENDING_MESSAGES_PER_ACCOUNT || held.units + units > MAX_HELD_UNITS_PER_ACCOUNT) return false;
    held.messages += messages;
    held.units += units;
    this.byAccount.set(accountId, held);
    return true;
  }

  release(accountId: string, messages: number, units: number): void {
    const held = this.byAccount.get(accountId);
    if (!held) return;
    held.messages -= messages;
    held.units -= units;
    if (held.messages <= 0 && held.units <= 0) this.byAccount.delete(accountId);
  }
}
