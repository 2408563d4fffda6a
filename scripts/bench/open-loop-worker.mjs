// Drives an open-loop load from its own thread, so that the load generator's latency figures do
// not include the waits of the benchmark's other work (simulated phones, the webhook receiver)
// on the main thread. Posts back the latency of each response, by status. Plain JavaScript: a
// worker thread does not inherit the TypeScript loader of the process that starts it.
//
// workerData: { request: { url, method, headers, body }, rate, connections, and seconds or amount (requests in all) }
// message:    { byStatus: { [status]: number[] (ms) }, errors: number }
import { parentPort, workerData } from 'node:worker_threads';
import autocannon from 'autocannon';

const job = workerData;
const result = { byStatus: {}, errors: 0 };
const instance = autocannon(
  { ...job.request, connections: job.connections, overallRate: job.rate, ...(job.amount ? { amount: job.amount } : { duration: job.seconds }) },
  (error, done) => {
    if (error) throw error;
    result.errors = done.errors + done.timeouts;
    parentPort.postMessage(result);
  },
);
instance.on('response', (_client, status, _bytes, ms) => {
  (result.byStatus[status] ??= []).push(ms);
});
