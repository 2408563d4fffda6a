// What presence needs from the other nodes (several nodes; src/cluster/presence.ts answers it).
// A device connected to another node counts as online while that node is alive.
export interface RemotePresence {
  isOnline(deviceId: string): boolean;
  /** Since when it is offline, as the node that saw it go announced; undefined when unknown. */
  offlineSince(deviceId: string): number | undefined;
  /** False while the other nodes cannot be heard (Redis down): then "not online" is a guess. */
  readonly current: boolean;
}
