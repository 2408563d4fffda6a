// The radio each backend name stands for. Termux and the modem are loaded only when asked for:
// a phone never loads the serial port library, which it does not have.
import type { Radio } from '../radio/radio.ts';
import { SimulatedRadio } from '../radio/simulate.ts';
import type { DeviceConfig } from './options.ts';

export async function createRadio(device: DeviceConfig): Promise<Radio> {
  switch (device.backend) {
    case 'simulate':
      return new SimulatedRadio({ name: 'sms-gateway-agent (simulated radio)' });
    case 'termux': {
      const { createTermuxRadio } = await import('../radio/termux/index.ts');
      return createTermuxRadio(device.termux ?? {});
    }
    case 'modem': {
      const { createModemRadio } = await import('../radio/modem/index.ts');
      const modem = device.modem!;
      return createModemRadio({ path: modem.serial, ...(modem.baudRate ? { baudRate: modem.baudRate } : {}), ...(modem.pin ? { pin: modem.pin } : {}), ...(modem.smsc ? { smsc: modem.smsc } : {}) });
    }
  }
}
