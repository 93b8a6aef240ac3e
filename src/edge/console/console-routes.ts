import { existsSync, readdirSync, readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { OperationalRequest, OperationalResponse, OperationalRoute } from '../health/operational-routes.js';

/** Where `npm run build` writes the console (src/console/build.ts), beside the compiled server. */
export const BUILT_CONSOLE_DIR = fileURLToPath(new URL('../../console/', import.meta.url));

export const CONSOLE_PATH = '/console/';

/**
 * The console's own pages run no inline script or style and reach nothing but Ferry itself, so the policy can
 * be this strict: a value from the API that smuggled markup into the page could neither run nor send anything out.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

interface Asset {
  readonly type: string;
  readonly plain: Buffer;
  readonly gzipped: Buffer | null;
  /** Hashed names never change content: browsers may keep them for good. The page itself is always asked again. */
  readonly cacheControl: string;
}

/**
 * The console's files, read once at start and served from memory: `/console/` (its page), each hashed asset
 * under `/console/`, and `/console` redirected. They need no API key (the console asks for one, and every call it
 * makes carries it). Without a build (running from source), `/console/` says how to make one.
 */
export function consoleRoutes(dir: string = BUILT_CONSOLE_DIR): OperationalRoute[] {
  const redirect: OperationalRoute = {
    path: '/console',
    handle: (_req, res) => {
      (res as ServerResponse).writeHead(308, { Location: CONSOLE_PATH, 'Content-Length': 0 });
      res.end();
    },
  };
  if (!existsSync(join(dir, 'index.html'))) {
    const missing = Buffer.from('The console is not built: run `npm run build`, then restart Ferry.\n');
    const note: Asset = { type: 'text/plain; charset=utf-8', plain: missing, gzipped: null, cacheControl: 'no-store' };
    return [redirect, { path: CONSOLE_PATH, handle: (req, res) => sendAsset(req, res, note, 404) }];
  }
  const routes: OperationalRoute[] = [redirect];
  for (const file of readdirSync(dir)) {
    const type = TYPES[extname(file)];
    if (type === undefined) continue;
    const gz = join(dir, `${file}.gz`);
    const asset: Asset = {
      type,
      plain: readFileSync(join(dir, file)),
      gzipped: existsSync(gz) ? readFileSync(gz) : null,
      cacheControl: file === 'index.html' ? 'no-cache' : 'public, max-age=31536000, immutable',
    };
    const path = file === 'index.html' ? CONSOLE_PATH : `${CONSOLE_PATH}${file}`;
    routes.push({ path, handle: (req, res) => sendAsset(req, res, asset, 200) });
  }
  return routes;
}

function sendAsset(req: OperationalRequest, res: OperationalResponse, asset: Asset, status: number): void {
  const gzip = asset.gzipped !== null && /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''));
  const body = gzip ? asset.gzipped! : asset.plain;
  // Both response kinds take the same arguments; their typings just disagree on the overloads.
  (res as ServerResponse).writeHead(status, {
    'Content-Type': asset.type,
    'Content-Length': body.byteLength,
    'Cache-Control': asset.cacheControl,
    'Content-Security-Policy': CONSOLE_CSP,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'Cross-Origin-Opener-Policy': 'same-origin',
    ...(asset.gzipped !== null ? { Vary: 'Accept-Encoding' } : {}),
    ...(gzip ? { 'Content-Encoding': 'gzip' } : {}),
  });
  if (req.method === 'HEAD') res.end();
  else res.end(body);
}
