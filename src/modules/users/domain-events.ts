// What the users module announces to the rest of the gateway (src/events/domain-events.ts).
export interface UsersEvents {
  /** A user was disabled, or their password reset by someone else; written in its transaction, so whoever was logged in is logged out with it. */
  'user.locked_out': { userId: string };
}
