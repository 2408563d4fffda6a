// The "SIM" choice of the send form: POST /sms's sim_slot, meaningful once a device is chosen
// (spec: a slot of a named multi-SIM device). "Device default" sends nothing, so the device's
// own selected_sim decides; the options are the SIM cards the chosen phone reported.
import { href } from '../../router.ts';
import { SelectField } from '../../ui/fields.tsx';
import type { Device } from '../../api/types.ts';

function selectedSimLabel(device: Device): string {
  if (device.selected_sim === -2) return 'the phone\'s default SIM';
  if (device.selected_sim === -1) return 'a random SIM';
  const card = device.sim_cards.find((sim) => sim.index === device.selected_sim);
  return `SIM ${device.selected_sim + 1}${card?.name_operator ? ` (${card.name_operator})` : ''}`;
}

export function SimChoice({ device, value, onValue, error }: { device: Device | undefined; value: string; onValue: (value: string) => void; error?: string | undefined }) {
  const options = [
    { value: '', label: 'Device default' },
    ...(device?.sim_cards ?? []).map((sim) => ({ value: String(sim.index), label: `SIM ${sim.index + 1}${sim.name_operator ? ` (${sim.name_operator})` : ''}` })),
    // A choice among one SIM is no choice; a phone that has not reported its SIMs may hold several.
    ...(device && device.sim_cards.length !== 1 ? [{ value: '-1', label: 'A random SIM' }] : []),
  ];
  return (
    <SelectField
      label="SIM"
      name="sim_slot"
      value={device ? value : ''}
      onValue={onValue}
      options={options}
      error={error}
      disabled={!device}
      hint={
        device ? (
          <>
            By default {device.name_custom} sends through {selectedSimLabel(device)} (<a href={href(`/devices/${device.id}`)}>its settings</a>).
          </>
        ) : (
          'Choose a device to pick one of its SIM cards.'
        )
      }
    />
  );
}
