/**
 * The page: `GET /?token=…` checks the token, sets the HttpOnly, SameSite=Strict cookie and
 * redirects to `/` (so the token leaves the address bar and the history); `/` serves the app to
 * a browser with the cookie; the page's files come from `web/` (no build step, no CDN).
 *
 * @module
 */
import { extname, join } from "node:path";
import type { OpenAPIHono } from "@hono/zod-openapi";
import { setCookie } from "hono/cookie";
import type { AppContext } from "./create_app.ts";
import { requestToken, TOKEN_COOKIE, tokenMatches } from "./serve_guard.ts";

/** The page's files under `web/`, by URL path. */
export const WEB_FILES: Readonly<Record<string, string>> = {
  "/app.js": "app.js",
  "/style.css": "style.css",
  "/favicon.svg": "favicon.svg",
};

/**
 * The page's libraries, served from the pinned npm packages of the checkout's `node_modules`
 * (no CDN): markdown (marked), its sanitiser (DOMPurify) and code highlighting (highlight.js).
 */
export const VENDOR_FILES: Readonly<Record<string, string>> = {
  "/vendor/marked.js": "marked/lib/marked.umd.js",
  "/vendor/purify.js": "dompurify/dist/purify.min.js",
  "/vendor/highlight.js": "@highlightjs/cdn-assets/highlight.min.js",
  "/vendor/highlight-light.css": "@highlightjs/cdn-assets/styles/github.min.css",
  "/vendor/highlight-dark.css": "@highlightjs/cdn-assets/styles/github-dark.min.css",
};

const TYPES: Record<string, string> = {
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".html": "text/html; charset=utf-8",
  ".svg": "image/svg+xml",
};

const LOCKED = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>odek</title>
<meta name="viewport" content="width=device-width, initial-scale=1"><link rel="stylesheet" href="/style.css"></head>
<body><main class="locked"><h1>odek serve</h1><p>Open the address <code>odek serve</code> printed
(it carries this server's token) to sign in.</p></main></body></html>`;

/** Register the token page and the page's files. */
export function registerPage(app: OpenAPIHono, ctx: AppContext): void {
  // The checkout's web/ folder, from the runtime's one root (never from a module's URL).
  const dir = ctx.webDir ?? join(ctx.runtime.paths.installDir, "web");
  app.get("/", async (c) => {
    c.header("Cache-Control", "no-store");
    const given = c.req.query("token");
    if (given !== undefined) {
      if (!tokenMatches(given, ctx.token)) return c.html(LOCKED, 401);
      setCookie(c, TOKEN_COOKIE, ctx.token, {
        httpOnly: true,
        sameSite: "Strict",
        path: "/",
      });
      return c.redirect("/", 303);
    }
    if (!tokenMatches(requestToken(c), ctx.token)) return c.html(LOCKED, 401);
    return c.html(await Deno.readTextFile(join(dir, "index.html")), 200);
  });
  const modules = join(ctx.runtime.paths.installDir, "node_modules");
  const files: [string, string][] = [
    ...Object.entries(WEB_FILES).map(([path, file]): [string, string] => [path, join(dir, file)]),
    ...Object.entries(VENDOR_FILES).map(([path, file]): [string, string] => [
      path,
      join(modules, file),
    ]),
  ];
  for (const [path, file] of files) {
    app.get(path, async (c) => {
      let body: Uint8Array<ArrayBuffer>;
      try {
        body = await Deno.readFile(file);
      } catch {
        // without the library the page shows plain text (run "deno task setup")
        return c.text(`${path} is not installed: run "deno task setup".`, 404);
      }
      c.header("Content-Type", TYPES[extname(file)] ?? "application/octet-stream");
      c.header("Cache-Control", "no-cache");
      return c.body(body, 200);
    });
  }
}
