import express, { type Express, type NextFunction, type Request, type Response, type Router } from 'express';

/** What the router package keeps per registered handler: route layers carry their route's path. */
interface Layer {
  route?: { path?: unknown };
}

/** `/api/<segment>` with a static first segment (no parameter, wildcard or group in it). */
const STATIC_API_ROUTE = /^\/api\/([^/:*{}()?]+)(?:\/|$)/;
/** The first segment of a request's path under /api. */
const API_SEGMENT = /^\/api\/([^/]+)/;

function prefixOf(layer: Layer): string | null {
  const routePath = layer.route?.path;
  if (typeof routePath !== 'string') return null;
  // Express matches paths case-insensitively unless told otherwise: so does the index.
  return STATIC_API_ROUTE.exec(routePath)?.[1].toLowerCase() ?? null;
}

/**
 * Express looks for a request's handler by testing every registered route in turn: with ~200
 * routes, a call to one registered late paid ~100 failed path matches before its own (a tenth of
 * a guarded request, QUALITY.md P4). Nest registers its routes as one unbroken run of layers; this
 * replaces that run by one middleware that picks, by the path's first segment after /api, a router
 * holding only that segment's routes, in their original order. Routes of different first segments
 * can never match the same path, so no request finds another handler than before; a path no
 * segment knows falls through to what followed the run (404, the console). Only applied when no
 * route in the run starts with a parameter or wildcard, which could match across segments.
 * Call once, after the application is initialised (all routes registered).
 */
export function indexApiRoutes(http: Express): void {
  const stack = (http as unknown as { router: { stack: Layer[] } }).router.stack;
  let run = { start: 0, end: 0 };
  for (let i = 0; i < stack.length;) {
    if (prefixOf(stack[i]) === null) {
      i++;
      continue;
    }
    let j = i;
    while (j < stack.length && prefixOf(stack[j]) !== null) j++;
    if (j - i > run.end - run.start) run = { start: i, end: j };
    i = j;
  }
  if (run.end - run.start < 2) return;
  const options = { caseSensitive: Boolean(http.get('case sensitive routing')), strict: Boolean(http.get('strict routing')) };
  const routers = new Map<string, Router>();
  for (const layer of stack.slice(run.start, run.end)) {
    const prefix = prefixOf(layer)!;
    let router = routers.get(prefix);
    if (!router) routers.set(prefix, (router = express.Router(options)));
    (router as unknown as { stack: Layer[] }).stack.push(layer);
  }
  const dispatch = (req: Request, res: Response, next: NextFunction): void => {
    const segment = API_SEGMENT.exec(req.path)?.[1];
    const router = segment === undefined ? undefined : routers.get(options.caseSensitive ? segment : segment.toLowerCase());
    if (router) router(req, res, next);
    else next();
  };
  // Let express build the middleware's layer, then move it where the run was.
  http.use(dispatch);
  const layer = stack.pop()!;
  stack.splice(run.start, run.end - run.start, layer);
}
