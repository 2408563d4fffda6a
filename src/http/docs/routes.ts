// The API reference page at /docs: our page plus Swagger UI's files, all from local disk.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type Router from '@koa/router';

const here = dirname(fileURLToPath(import.meta.url));
const swaggerDir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

// Only these files are served: a fixed list leaves no path for traversal tricks.
const FILES: Record<string, { path: string; type: string }> = {
  '/docs': { path: join(here, 'index.html'), type: 'text/html; charset=utf-8' },
  '/docs/assets/docs.js': { path: join(here, 'docs.js'), type: 'text/javascript; charset=utf-8' },
  '/docs/assets/swagger-ui.css': { path: join(swaggerDir, 'swagger-ui.css'), type: 'text/css; charset=utf-8' },
  '/docs/assets/swagger-ui-bundle.js': { path: join(swaggerDir, 'swagger-ui-bundle.js'), type: 'text/javascript; charset=utf-8' },
};

export function mountDocs(router: Router): void {
  const cache = new Map<string, Buffer>();
  for (const [url, file] of Object.entries(FILES)) {
    router.get(url, async (ctx) => {
      let content = cache.get(url);
      if (!content) cache.set(url, (content = await readFile(file.path)));
      ctx.type = file.type;
      ctx.set('Cache-Control', 'public, max-age=3600');
      ctx.body = content;
    });
  }
}
