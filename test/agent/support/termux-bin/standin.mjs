// One stand-in for every Termux:API command the agent runs; the executables beside this file are
// two-line sh scripts that call it with their own name. It records each call (command, arguments,
// standard input) as a JSON line in $TERMUX_STANDIN_LOG and answers from the files of the
// directory $TERMUX_STANDIN_STATE, in the JSON shapes the Termux:API app prints:
//   inbox.json     SMS rows as termux-sms-list prints them (_id, threadid, type, read, address,
//                  number, received, body); the newest is the one with the highest _id
//   call-log.json  call rows as termux-call-log prints them (name, phone_number, type, date,
//                  duration, sim_id), oldest first
//   battery.json, device-info.json, cell-info.json   the whole answer of those commands
//   properties.json   { "ro.product.model": "..." } for getprop
//   fail-<command>.json   { stdout?, stderr?, exitCode?, once?, hangMs? }: that command answers
//                  this instead (once: only the next call; hangMs: waits that long first)
import { appendFileSync, existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const [command = '', ...args] = process.argv.slice(2);
const stateDir = process.env.TERMUX_STANDIN_STATE ?? '.';
const logFile = process.env.TERMUX_STANDIN_LOG;

function readState(name, fallback) {
  const file = join(stateDir, name);
  return existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : fallback;
}

// Options the way the scripts' getopts reads them: "-x value" pairs up to the first operand or "--".
function options(withValue) {
  const found = {};
  let index = 0;
  while (index < args.length) {
    const arg = args[index];
    if (arg === '--') { index += 1; break; }
    if (!arg.startsWith('-') || arg === '-') break;
    const letter = arg.slice(1, 2);
    if (withValue.includes(letter)) {
      found[letter] = arg.length > 2 ? arg.slice(2) : args[index + 1];
      index += arg.length > 2 ? 1 : 2;
    } else {
      found[letter] = true;
      index += 1;
    }
  }
  return { found, operands: args.slice(index) };
}

function print(value) {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

// termux-sms-send reads the text from standard input when no text arguments are given.
const stdin = command === 'termux-sms-send' && options('ns').operands.length === 0 ? readFileSync(0, 'utf8') : undefined;
if (logFile) appendFileSync(logFile, `${JSON.stringify({ command, args, ...(stdin === undefined ? {} : { stdin }) })}\n`);

const failure = readState(`fail-${command}.json`, undefined);
if (failure) {
  if (failure.once) rmSync(join(stateDir, `fail-${command}.json`));
  if (failure.hangMs) await new Promise((resolve) => setTimeout(resolve, failure.hangMs));
  if (failure.stdout) process.stdout.write(failure.stdout);
  if (failure.stderr) process.stderr.write(failure.stderr);
  process.exit(failure.exitCode ?? 0);
}

switch (command) {
  case 'termux-sms-send': {
    if (!options('ns').found.n) {
      console.log('termux-sms-send: no recipient number given');
      process.exit(1);
    }
    break; // Prints nothing when the SMS was handed to Android.
  }
  case 'termux-sms-list': {
    const { found } = options('flot');
    const type = found.t ?? 'all';
    const limit = Number(found.l ?? 10);
    const offset = Number(found.o ?? 0);
    const rows = readState('inbox.json', [])
      .filter((row) => type === 'all' || row.type === type)
      .sort((a, b) => b._id - a._id)
      .slice(offset, offset + limit)
      .reverse();
    print(rows);
    break;
  }
  case 'termux-call-log': {
    const { found } = options('lo');
    const limit = Number(found.l ?? 10);
    const offset = Number(found.o ?? 0);
    const newestFirst = [...readState('call-log.json', [])].reverse();
    print(newestFirst.slice(offset, offset + limit).reverse());
    break;
  }
  case 'termux-battery-status':
    print(readState('battery.json', {}));
    break;
  case 'termux-telephony-deviceinfo':
    print(readState('device-info.json', {}));
    break;
  case 'termux-telephony-cellinfo':
    print(readState('cell-info.json', []));
    break;
  case 'getprop': {
    const value = readState('properties.json', {})[args[0] ?? ''];
    process.stdout.write(`${value ?? ''}\n`);
    break;
  }
  default:
    console.error(`stand-in: unknown command ${command}`);
    process.exit(127);
}
