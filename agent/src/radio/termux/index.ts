// The Termux backend: the agent on an Android phone, through the Termux:API commands.
export { createTermuxRadio, type TermuxOptions } from './termux-radio.ts';
export { INSTALL_HINT, TermuxCommandError } from './run-termux-command.ts';
