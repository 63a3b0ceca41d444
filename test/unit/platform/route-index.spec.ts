import express, { type NextFunction, type Request, type Response } from 'express';
import request from 'supertest';
import { IndexedExpressAdapter, pathKey } from '../../../src/platform/http/route-index';

interface Stack {
  stack: { name?: string; route?: unknown }[];
}

type Register = Pick<express.Express, 'use' | 'get' | 'post' | 'all'>;

/**
 * One application, built twice: registered through IndexedExpressAdapter (as Nest registers routes)
 * and directly on Express. Routing must not change when its routes are indexed.
 */
function buildApp(indexed: boolean): express.Express {
  const app = express();
  app.set('case sensitive routing', true);
  const on: Register = indexed ? (new IndexedExpressAdapter(app) as unknown as Register) : app;
  on.use((req, res, next) => {
    res.setHeader('X-Middleware', 'seen');
    next();
  });
  const reply = (label: string) => (req: Request, res: Response) =>
    res.json({ label, params: req.params, route: (req.route as { path: string }).path });
  on.get('/api/v1/repos/search', reply('search'));
  on.get('/api/v1/repos/:owner/:repo', reply('repo'));
  on.get('/api/v1/user', reply('get user'));
  on.post('/api/v1/user', reply('post user'));
  on.get('/api/v2/users/:user', (req, res, next) =>
    req.params.user === 'skip' ? next() : reply('user')(req, res),
  );
  on.get('/api/v2/users/:user', reply('user after skip'));
  on.get('/api/v2/fail', () => {
    throw new Error('boom');
  });
  on.get('/healthz', reply('health'));
  on.get('/metrics/:id', reply('metric'));
  // Routes that could match paths of any first segment stay in place; later routes stay after them.
  on.get('/:owner/:repo/info/refs', reply('git refs'));
  on.all('/api/v2/all', reply('all methods'));
  on.get('/api/v1/user/late', reply('late'));
  on.get('/api/v1/:anything', reply('param after barrier'));
  on.use((req: Request, res: Response) => res.status(404).json({ label: `not found ${req.method}` }));
  on.use((error: Error, req: Request, res: Response, _next: NextFunction) =>
    res.status(500).json({ label: `error ${error.message}` }),
  );
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

describe('IndexedExpressAdapter', () => {
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

  it('registers routes as they come on a case-insensitive router', () => {
    const app = express();
    const adapter = new IndexedExpressAdapter(app);
    adapter.get('/api/v1/user', (req: Request, res: Response) => res.end());
    expect(
      (app.router as unknown as Stack).stack.filter((layer) => layer.name === 'routeIndex'),
    ).toHaveLength(0);
    expect(adapter.groups()).toEqual([]);
  });

  it('holds deferred registrations until the not-found handler, behind every route', async () => {
    const app = express();
    app.set('case sensitive routing', true);
    const adapter = new IndexedExpressAdapter(app);
    adapter.deferUntilRoutes(() =>
      adapter.get('/api/v1/:any', (req: Request, res: Response) => res.json('docs')),
    );
    adapter.get('/api/v1/user', (req: Request, res: Response) => res.json('user'));
    adapter.setNotFoundHandler((req: Request, res: Response) => res.status(404).json('none'));
    expect((await request(app).get('/api/v1/user')).body).toBe('user');
    expect((await request(app).get('/api/v1/other')).body).toBe('docs');
    expect((await request(app).get('/other')).status).toBe(404);
  });
});
