import express, { type Express, type NextFunction, type Request, type Response, type Router } from 'express';

/** What the router package keeps per registered handler: route layers carry their route's path. */
interface Layer {
  route?: { path?: unknown };
}

/** `/api/<segment>` with a static first segment (no parameter, wildcard or group in it). */
const STATIC_API_ROUTE = /^\/api\/([^/:*{}()?]+)(?:\/|$)/;
/** A route path whose first segment is static (no parameter, wildcard or group in it). */
const STATIC_FIRST_SEGMENT = /^\/([^/:*{}()?]+)(?:\/|$)/;

function prefixOf(layer: Layer): string | null {
  const routePath = layer.route?.path;
  if (typeof routePath !== 'string') return null;
  // Express matches paths case-insensitively unless told otherwise: so does the index.
  return STATIC_API_ROUTE.exec(routePath)?.[1].toLowerCase() ?? null;
}

/**
 * A route that can never match a path under /api: its first segment is static and is not `api`
 * (compared as express does by default, ignoring case), e.g. the root-level `/Session/*` routes.
 * The index may move API routes past such a route: no request could reach both.
 */
function isForeignRoute(layer: Layer): boolean {
  const routePath = layer.route?.path;
  if (typeof routePath !== 'string') return false;
  const segment = STATIC_FIRST_SEGMENT.exec(routePath)?.[1];
  return segment !== undefined && segment.toLowerCase() !== 'api';
}

/**
 * Express looks for a request's handler by testing every registered layer in turn: with ~200
 * routes, a call to one registered late paid ~100 failed path matches before its own (a tenth of
 * a guarded request, QUALITY.md P4). This replaces each group of /api routes by one middleware
 * that picks, by the path's first segment after /api, a router holding only that group's routes
 * of that segment, in their original order. A group is a stretch of the stack holding only /api
 * routes with a static first segment and routes that can never match an /api path (the root-level
 * `/Session/*` routes Nest registers between the auth routes): those keep their order, after the
 * group's middleware. Anything else (a middleware, a route whose first segment is a parameter or
 * wildcard, which could match across segments) ends a group and keeps its place, so no request
 * finds another handler than before; a path no segment knows falls through to what followed.
 * Call once, after the application is initialised (all routes registered).
 */
export function indexApiRoutes(http: Express): void {
  const stack = (http as unknown as { router: { stack: Layer[] } }).router.stack;
  const options = { caseSensitive: Boolean(http.get('case sensitive routing')), strict: Boolean(http.get('strict routing')) };
  const apiSegment = options.caseSensitive ? /^\/api\/([^/]+)/ : /^\/api\/([^/]+)/i;
  const rebuilt: Layer[] = [];
  for (let i = 0; i < stack.length;) {
    if (prefixOf(stack[i]) === null) {
      rebuilt.push(stack[i++]);
      continue;
    }
    const indexed: Layer[] = [];
    const foreign: Layer[] = [];
    for (; i < stack.length; i++) {
      if (prefixOf(stack[i]) !== null) indexed.push(stack[i]);
      else if (isForeignRoute(stack[i])) foreign.push(stack[i]);
      else break;
    }
    if (indexed.length < 2) {
      // Nothing to gain: keep the group exactly as it was (it is only ever one route and the
      // foreign routes after it, in their original order).
      rebuilt.push(...indexed, ...foreign);
      continue;
    }
    rebuilt.push(dispatchLayer(http, routersBySegment(indexed, options), apiSegment, options.caseSensitive), ...foreign);
  }
  stack.splice(0, stack.length, ...rebuilt);
}

function routersBySegment(layers: Layer[], options: express.RouterOptions): Map<string, Router> {
  const routers = new Map<string, Router>();
  for (const layer of layers) {
    const prefix = prefixOf(layer)!;
    let router = routers.get(prefix);
    if (!router) routers.set(prefix, (router = express.Router(options)));
    (router as unknown as { stack: Layer[] }).stack.push(layer);
  }
  return routers;
}

/** A middleware layer built by express itself (so it matches every path), taken off the stack's end. */
function dispatchLayer(http: Express, routers: Map<string, Router>, apiSegment: RegExp, caseSensitive: boolean): Layer {
  const dispatch = (req: Request, res: Response, next: NextFunction): void => {
    const segment = apiSegment.exec(req.path)?.[1];
    const router = segment === undefined ? undefined : routers.get(caseSensitive ? segment : segment.toLowerCase());
    if (router) router(req, res, next);
    else next();
  };
  http.use(dispatch);
  return (http as unknown as { router: { stack: Layer[] } }).router.stack.pop()!;
}
