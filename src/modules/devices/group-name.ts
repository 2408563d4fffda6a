// A device group: a name the account gives some of its phones ("uk-sims") so that a route can
// keep an SMS for those phones only (docs/routes.md). Lowercase only, so that "UK-sims" and
// "uk-sims" can never be two groups that look like one.
export const DEVICE_GROUP_PATTERN = '^[a-z0-9][a-z0-9_-]{0,31}$';

export const DEVICE_GROUP_RULE = '1-32 lowercase letters, digits, "-" or "_", starting with a letter or digit';

export function isDeviceGroupName(name: string): boolean {
  return new RegExp(DEVICE_GROUP_PATTERN).test(name);
}
