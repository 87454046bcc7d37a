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
    http.get('/api/clock', answer('clock'));
    http.get('/api/users/me', answer('users.me'));
    http.get('/api/users/:id', answer('users.byId'));
    http.post('/api/users', answer('users.create'));
    http.get('/api/users/special', answer('users.special (registered after :id, never reached)'));
    http.get('/api/webchat/lines/:lineId', answer('webchat.line'));
    http.use((_req, res) => res.status(404).json({ name: 'not found' }));
    return http;
  }
  const stackOf = (http: express.Express) => (http as unknown as { router: { stack: unknown[] } }).router.stack;

  it('replaces the run of /api routes by one layer', () => {
    const http = app();
    const before = stackOf(http).length;
    indexApiRoutes(http);
    expect(stackOf(http).length).toBe(before - 6 + 1);
  });

  it.each([
    ['GET', '/api/clock', 200, 'clock'],
    ['GET', '/api/Clock/', 200, 'clock'],
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
