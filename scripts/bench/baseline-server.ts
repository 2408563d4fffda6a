// The accept-rate baseline: a bare Koa + @koa/router + @koa/bodyparser handler that echoes the
// JSON body with 201. Prints its port on stdout, runs until killed.
import Koa from 'koa';
import Router from '@koa/router';
import { bodyParser } from '@koa/bodyparser';

const app = new Koa();
const router = new Router();
router.post('/api/ext/v1/sms', (ctx) => {
  ctx.status = 201;
  ctx.body = ctx.request.body;
});
app.use(bodyParser()).use(router.routes());
const server = app.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`${JSON.stringify({ port: typeof address === 'object' && address ? address.port : 0 })}\n`);
});
