// The GSM modem radio: createModemRadio({ path: '/dev/ttyUSB2' }) gives a Radio that sends and
// receives SMS through a modem speaking AT commands in PDU mode.
export { createModemRadio, type ModemOptions } from './modem-radio.ts';
export type { OpenPort } from './serial-port.ts';
