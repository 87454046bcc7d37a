import express from 'express';
import request from 'supertest';
import { indexApiRoutes } from './route-index';

/** The route index must never change which handler answers a request, only how fast it is found. */
describe(indexApiRoutes.name, () => {
  function app() {
    const http = express();
    http.use((_req, res, next) => {
      res.setHeader('X-Before', 'yes');
      next();
    });
    const answer = (name: string) => (req: express.Request, res: express.Response) => res.json({ name, params: req.params });
    http.get('/api/docs-json', answer('docs.json'));
    http.get('/api/docs', answer('docs'));
    // A middleware mounted under /api ends a group: the routes after it are indexed apart.
    http.use('/api/docs', (_req, res) => res.json({ name: 'docs.assets' }));
    http.get('/api/auth/login', answer('auth.login'));
    // Root-level routes between /api routes (as Nest registers /Session/* between the auth routes).
    http.get('/Session/RefreshToken', answer('session.refresh'));
    http.get('/api/clock', answer('clock'));
    http.get('/Session/{*path}', answer('session.any'));
    http.get('/api/users/me', answer('users.me'));
    http.get('/api/users/:id', answer('users.byId'));
    http.post('/api/users', answer('users.create'));
    http.get('/api/users/special', answer('users.special (registered after :id, never reached)'));
    http.get('/api/webchat/lines/:lineId', answer('webchat.line'));
    http.use((_req, res) => res.status(404).json({ name: 'not found' }));
    return http;
  }
  const stackOf = (http: express.Express) => (http as unknown as { router: { stack: unknown[] } }).router.stack;

  it('replaces each group of /api routes by one layer, keeping the root-level routes between them', () => {
    const http = app();
    const before = stackOf(http).length;
    indexApiRoutes(http);
    // Two docs routes → 1 layer; auth.login, clock and the five users/webchat routes → 1 layer.
    expect(stackOf(http).length).toBe(before - 2 + 1 - 7 + 1);
  });

  it.each([
    ['GET', '/api/clock', 200, 'clock'],
    ['GET', '/api/Clock/', 200, 'clock'],
    ['GET', '/API/clock', 200, 'clock'],
    ['GET', '/api/docs', 200, 'docs'],
    ['GET', '/api/docs-json', 200, 'docs.json'],
    ['GET', '/api/docs/swagger.css', 200, 'docs.assets'],
    ['GET', '/api/auth/login', 200, 'auth.login'],
    ['GET', '/Session/RefreshToken', 200, 'session.refresh'],
    ['GET', '/Session/other', 200, 'session.any'],
    ['GET', '/api/users/me', 200, 'users.me'],
    ['GET', '/api/users/special', 200, 'users.byId'],
    ['POST', '/api/users', 200, 'users.create'],
    ['GET', '/api/webchat/lines/l-1', 200, 'webchat.line'],
    ['GET', '/api/nothing', 404, 'not found'],
    ['GET', '/api', 404, 'not found'],
    ['DELETE', '/api/clock', 404, 'not found'],
    ['GET', '/elsewhere', 404, 'not found'],
  ])('%s %s answers as before (%i, %s)', async (method, path, status, name) => {
    const plain = await request(app())[method.toLowerCase() as 'get'](path);
    const indexed = app();
    indexApiRoutes(indexed);
    const answer = await request(indexed)[method.toLowerCase() as 'get'](path);
    expect([answer.status, answer.body.name]).toEqual([status, name]);
    expect([answer.status, answer.body, answer.headers['x-before']]).toEqual([plain.status, plain.body, plain.headers['x-before']]);
  });

  it('leaves the stack alone when a route starts with a parameter (it could match any segment)', () => {
    const http = express();
    http.get('/api/clock', (_req, res) => res.end());
    http.get('/api/:anything', (_req, res) => res.end());
    http.get('/api/users', (_req, res) => res.end());
    const before = [...stackOf(http)];
    indexApiRoutes(http);
    expect(stackOf(http)).toEqual(before);
  });
});
