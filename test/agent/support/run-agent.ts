// The agent's command line run from its sources, as the tests start it in a process of its own.
import { main } from '../../../agent/src/cli/main.ts';

process.exitCode = await main(process.argv.slice(2));
