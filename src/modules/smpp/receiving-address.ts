// The destination_addr of an incoming SMS sent to an ESME as deliver_sm: whom it was sent to.
// The gateway does not know a phone's own number (phones report their SIM slots and operators,
// never their numbers), so it names the phone that received it instead: the device's name, and
// the SIM slot it came in on when the phone said (as the API's sim_slot, from 0), such as
// "Office/1". It goes with dest_addr_ton 5 (alphanumeric), which GSM limits to 11 characters,
// and ESMEs hold it to that (Kannel refuses a longer one, and the deliver_sm with it): the name is
// cut to fit, and anything outside printable ASCII becomes "_".
const MAX_ADDRESS = 11;

export function receivingAddress(deviceName: string, simSlot: number | null): string {
  const suffix = simSlot === null ? '' : `/${simSlot}`;
  const name = deviceName.replace(/[^\x20-\x7e]/g, '_').trim().slice(0, MAX_ADDRESS - suffix.length).trim();
  return `${name || 'phone'}${suffix}`;
}
