import express, { type NextFunction, type Request, type Response } from 'express';
import request from 'supertest';
import { indexRoutes, pathKey } from '../../src/platform/http/route-index';

interface Stack {
  stack: { name?: string; route?: unknown }[];
}

/** One application, built twice: routing must not change when its routes are indexed. */
function buildApp(indexed: boolean): express.Express {
  const app = express();
  app.set('case sensitive routing', true);
  app.use((req, res, next) => {
    res.setHeader('X-Middleware', 'seen');
    next();
  });
  const reply = (label: string) => (req: Request, res: Response) =>
    res.json({ label, params: req.params, route: (req.route as { path: string }).path });
  app.get('/api/v1/repos/search', reply('search'));
  app.get('/api/v1/repos/:owner/:repo', reply('repo'));
  app.get('/api/v1/user', reply('get user'));
  app.post('/api/v1/user', reply('post user'));
  app.get('/api/v2/users/:user', (req, res, next) =>
    req.params.user === 'skip' ? next() : reply('user')(req, res),
  );
  app.get('/api/v2/users/:user', reply('user after skip'));
  app.get('/api/v2/fail', () => {
    throw new Error('boom');
  });
  app.get('/healthz', reply('health'));
  app.get('/metrics/:id', reply('metric'));
  // Routes that could match paths of any first segment stay in place; later routes stay after them.
  app.get('/:owner/:repo/info/refs', reply('git refs'));
  app.all('/api/v2/all', reply('all methods'));
  app.get('/api/v1/user/late', reply('late'));
  app.get('/api/v1/:anything', reply('param after barrier'));
  app.use((req: Request, res: Response) => res.status(404).json({ label: `not found ${req.method}` }));
  app.use((error: Error, req: Request, res: Response, _next: NextFunction) =>
    res.status(500).json({ label: `error ${error.message}` }),
  );
  if (indexed) indexRoutes(app.router as unknown as Parameters<typeof indexRoutes>[0]);
  return app;
}

const requests: [string, string][] = [
  ['GET', '/api/v1/repos/search'],
  ['GET', '/api/v1/repos/octo/hello'],
  ['GET', '/api/v1/user'],
  ['GET', '/api/v1/user/'],
  ['GET', '/api/v1/user?x=1'],
  ['POST', '/api/v1/user'],
  ['PUT', '/api/v1/user'],
  ['HEAD', '/api/v1/user'],
  ['OPTIONS', '/api/v1/user'],
  ['GET', '/API/v1/user'],
  ['GET', '/api/v2/users/ann'],
  ['GET', '/api/v2/users/skip'],
  ['GET', '/api/v2/fail'],
  ['GET', '/healthz'],
  ['GET', '/healthz/'],
  ['GET', '/metrics/7'],
  ['GET', '/api/v1/info/refs'],
  ['DELETE', '/api/v2/all'],
  ['GET', '/api/v1/user/late'],
  ['GET', '/api/v1/other'],
  ['GET', '/api/v3/nothing'],
  ['GET', '/'],
];

describe('indexRoutes', () => {
  it('groups the routes behind one layer per section between layers that stay in place', () => {
    const app = buildApp(true);
    const stack = (app.router as unknown as Stack).stack;
    expect(stack.length).toBeLessThan((buildApp(false).router as unknown as Stack).stack.length);
    expect(stack.filter((layer) => layer.name === 'routeIndex')).toHaveLength(2);
  });

  it.each(requests)('%s %s is answered as without the index', async (method, url) => {
    const call = (app: express.Express) => {
      const agent = request(app);
      return agent[method.toLowerCase() as 'get'](url).then((res) => ({
        status: res.status,
        body: res.body as unknown,
        middleware: res.headers['x-middleware'],
      }));
    };
    expect(await call(buildApp(true))).toEqual(await call(buildApp(false)));
  });

  it('answers a route registered after a parameterised one only once that one passed', async () => {
    const res = await request(buildApp(true)).get('/api/v1/info/refs');
    expect(res.body).toMatchObject({ label: 'git refs', params: { owner: 'api', repo: 'v1' } });
  });

  it('keys request paths by their first two segments', () => {
    expect(pathKey('/api/v1/user')).toBe('/api/v1');
    expect(pathKey('/api/v1')).toBe('/api/v1');
    expect(pathKey('/api/')).toBe('/api');
    expect(pathKey('/healthz')).toBe('/healthz');
    expect(pathKey('/')).toBe('/');
  });

  it('leaves a case-insensitive router as it is', () => {
    const app = express();
    app.get('/api/v1/user', (req, res) => res.end());
    const before = (app.router as unknown as Stack).stack.length;
    indexRoutes(app.router as unknown as Parameters<typeof indexRoutes>[0]);
    expect((app.router as unknown as Stack).stack).toHaveLength(before);
  });
});
