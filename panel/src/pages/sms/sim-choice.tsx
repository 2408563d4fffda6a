// The "SIM" choice of the send form. POST /sms takes no SIM: a device sends through the SIM its
// settings select. So the field shows that, read-only, and points to where it is changed,
// rather than offering a choice the API would not honour.
import { href } from '../../router.ts';
import { Field } from '../../ui/fields.tsx';
import type { DeviceSummary } from './types.ts';

function selectedSimLabel(device: DeviceSummary): string {
  if (device.selected_sim === -2) return 'the phone\'s default SIM';
  if (device.selected_sim === -1) return 'a random SIM';
  const card = device.sim_cards.find((sim) => sim.index === device.selected_sim);
  return `SIM ${device.selected_sim + 1}${card?.name_operator ? ` (${card.name_operator})` : ''}`;
}

export function SimChoice({ device }: { device: DeviceSummary | undefined }) {
  return (
    <Field
      label="SIM"
      hint={
        device ? (
          <>
            {device.name_custom} sends through {selectedSimLabel(device)}; change it in <a href={href(`/devices/${device.id}`)}>the device's settings</a>.
          </>
        ) : (
          'Each device sends through the SIM its settings select.'
        )
      }
    >
      {(aria) => (
        <select {...aria} name="sim" disabled>
          <option value="">Device default</option>
        </select>
      )}
    </Field>
  );
}
