// Entry point of the `sms-gateway` command (bin/sms-gateway.js and `npm start` land here).
import { main } from './main.ts';

process.exitCode = await main(process.argv.slice(2));
