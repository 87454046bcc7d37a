import { existsSync } from 'node:fs';
import path from 'node:path';
import type { NestExpressApplication } from '@nestjs/platform-express';
import express, { type NextFunction, type Request, type Response } from 'express';
import { DataSource } from 'typeorm';
import { ORIGIN_PATTERN } from '@centralita/contracts';
import type { AppConfig } from '../config/app-config';
import { mapError } from './envelope-exception.filter';
import { inputProblem, pathProblem } from './input-sanitation';

/** Paths the API owns; everything else may be a console route. /Session/ is case-sensitive: /session/* are console pages. */
export function isApiPath(requestPath: string): boolean {
  return (
    requestPath === '/api' ||
    requestPath.startsWith('/api/') ||
    requestPath.startsWith('/socket.io/') ||
    requestPath.startsWith('/Session/')
  );
}

const cspWith = (frameAncestors: string): string =>
  [
    "default-src 'self'",
    "script-src 'self'",
    // PrimeReact positions overlays with inline styles.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob: https:",
    "font-src 'self' data:",
    "connect-src 'self' ws: wss:",
    "media-src 'self' blob:",
    `frame-ancestors ${frameAncestors}`,
    "base-uri 'self'",
    "form-action 'self'",
    "object-src 'none'",
  ].join('; ');
const CONSOLE_CSP = cspWith("'self'");
/** JSON answers load nothing and are framed by nobody. */
const API_CSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";
/** Swagger UI (/api/docs) is served from 'self' (@nestjs/swagger ships its files): the console's rules hold. */
const DOCS_PATH = '/api/docs';

const WEB_CHAT_PAGE = '/WindowChat/windowChat';
/**
 * Provider webhooks (/api/channels/:kind/:accountId/webhook) read their body raw: the signature is
 * checked over the exact bytes and nothing is parsed before it (ChannelWebhooksController).
 */
export const RAW_BODY_PATH = /^\/api\/channels\/[^/]+\/[^/]+\/webhook\/?$/i;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ORIGINS_TTL_MS = 60_000;

/**
 * The web-chat page is the one console page other sites may frame: only the origins allowed by the
 * tenant that owns the page's attention line (`?line=`, clients.allowed_origins), looked up per line
 * and kept a minute. The page's `?tenant=` is never trusted for this: otherwise a site allowed by
 * tenant A could frame tenant B's line by adding `tenant=A`. An unknown or deleted line gets 'self'.
 */
function webChatFrameAncestors(app: NestExpressApplication): (lineId: unknown) => Promise<string> {
  const cache = new Map<string, { value: string; expiresAt: number }>();
  return async (lineId) => {
    if (typeof lineId !== 'string' || !UUID.test(lineId)) return "'self'";
    const hit = cache.get(lineId);
    if (hit && hit.expiresAt > Date.now()) return hit.value;
    const rows: { allowed_origins: string[] }[] = await app
      .get(DataSource)
      .query(
        `SELECT c.allowed_origins FROM attention_lines l JOIN clients c ON c.id = l.client_id
         WHERE l.id = $1 AND l.deleted_at IS NULL`,
        [lineId],
      )
      .catch(() => []);
    const origins = (rows[0]?.allowed_origins ?? []).filter(
      // Only plain origins reach the header: a stored value can never inject another directive.
      (origin) => ORIGIN_PATTERN.test(origin),
    );
    const value = ["'self'", ...origins].join(' ');
    if (cache.size > 10_000) cache.clear();
    cache.set(lineId, { value, expiresAt: Date.now() + ORIGINS_TTL_MS });
    return value;
  };
}

/**
 * Express-level set-up that must run before Nest's routes: proxy trust, JSON parsing with a size
 * limit (parse errors answered in the envelope), security headers and the built console.
 */
export function configureHttp(app: NestExpressApplication, config: AppConfig): void {
  const http = app.getHttpAdapter().getInstance() as express.Express;
  http.disable('x-powered-by');
  // API answers are no-store: an ETag (a hash of every JSON body) would never be used. The
  // console's files keep theirs (express.static and sendFile set their own).
  http.set('etag', false);
  http.set('trust proxy', config.trustProxy);

  const parseJson = express.json({
    limit: config.bodyLimit,
    type: ['application/json', 'application/*+json'],
    // Kept for webhook signature checks, which must run over the exact bytes received.
    verify: (req, _res, buffer) => {
      (req as Request & { rawBody?: Buffer }).rawBody = buffer;
    },
  });
  const serveConsole = consoleHandler(app, config);

  // One middleware instead of five: every app.use layer is another step of express's router on
  // every request, a measurable share of a guarded API call (P4). Order of effects as before:
  // security headers, then the body (errors answered in the envelope, before no-store is set),
  // then no-store on API paths or the console for everything else.
  app.use((req: Request, res: Response, next: NextFunction) => {
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Referrer-Policy', 'strict-origin-when-cross-origin');
    const api = isApiPath(req.path);
    // Every answer carries a CSP: the console's for its files and pages (the web-chat page sets
    // its own framing later), the console's for the API docs UI, none-at-all for JSON.
    res.setHeader(
      'Content-Security-Policy',
      !api || req.path === DOCS_PATH || req.path.startsWith(`${DOCS_PATH}/`) ? CONSOLE_CSP : API_CSP,
    );
    const afterBody = (): void => {
      if (api) {
        res.setHeader('Cache-Control', 'no-store');
        // One sanitation for every route, before any guard, pipe or query sees the input.
        const problem =
          pathProblem(req.path) ?? (req.url.includes('?') ? inputProblem(req.query, 'query') : null) ?? inputProblem(req.body, 'body');
        if (problem) return answerError(res, problem);
        next();
      } else if (serveConsole) serveConsole(req, res, next);
      else next();
    };
    if (!mayHaveBody(req) || (api && RAW_BODY_PATH.test(req.path))) {
      // What the JSON parser does for a request without a body, without its per-request work.
      if (!Reflect.has(req, 'body')) req.body = undefined;
      afterBody();
      return;
    }
    parseJson(req, res, (error?: unknown) => {
      if (!error) return afterBody();
      if (res.headersSent) return next(error);
      answerError(res, error);
    });
  });
}

function answerError(res: Response, error: unknown): void {
  const { status, body, headers } = mapError(error);
  res.status(status).set(headers).json(body);
}

/** body-parser's own test (type-is hasBody): a request has a body when it announces its framing. */
function mayHaveBody(req: Request): boolean {
  return req.headers['transfer-encoding'] !== undefined || !Number.isNaN(Number(req.headers['content-length']));
}

/**
 * The built console, when there is one: its files, and index.html (with the CSP) for every other
 * GET outside the API. Never called for API paths, so an API call costs no stat on disk.
 */
function consoleHandler(
  app: NestExpressApplication,
  config: AppConfig,
): ((req: Request, res: Response, next: NextFunction) => void) | null {
  const index = path.join(config.webDist, 'index.html');
  if (!existsSync(index)) return null;
  const serveConsoleFile = express.static(config.webDist, {
    index: false,
    setHeaders: (res, file) => {
      // Vite fingerprints everything under assets/: cache it for good.
      if (file.includes(`${path.sep}assets${path.sep}`)) res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
    },
  });
  const frameAncestorsFor = webChatFrameAncestors(app);
  const serveIndex = (req: Request, res: Response, next: NextFunction): void => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    const send = (csp: string) => {
      res.setHeader('Content-Security-Policy', csp);
      res.setHeader('Cache-Control', 'no-cache');
      res.sendFile(index);
    };
    if (!req.path.startsWith(WEB_CHAT_PAGE)) return send(CONSOLE_CSP);
    frameAncestorsFor(req.query.line).then((ancestors) => send(cspWith(ancestors)), next);
  };
  // A static error skips the index fallback, as an error passed between two app.use layers did.
  return (req, res, next) => serveConsoleFile(req, res, (error?: unknown) => (error ? next(error) : serveIndex(req, res, next)));
}
