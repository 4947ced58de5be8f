/**
 * The server's doors, closed by default: the per-instance token (cookie or bearer, compared in
 * constant time), the `Host` allow-list (DNS rebinding), the `Origin` check of mutating requests
 * and WebSocket upgrades, and the security headers of every response.
 *
 * @module
 */
import { timingSafeEqual } from "node:crypto";
import type { Context, MiddlewareHandler } from "hono";
import { getCookie } from "hono/cookie";

/** The cookie the token page sets. */
export const TOKEN_COOKIE = "odek_token";

/** The Content-Security-Policy of every response: no inline script, no framing. */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

/** What the guard admits. */
export interface GuardOptions {
  /** The per-instance token. */
  token: string;
  /** Host names (or addresses) a request's `Host` may name, without port. */
  allowedHosts: readonly string[];
}

/** Whether `given` is the token, in time that does not depend on where they differ. */
export function tokenMatches(given: string | undefined, token: string): boolean {
  if (given === undefined) return false;
  const a = new TextEncoder().encode(given);
  const b = new TextEncoder().encode(token);
  // equal lengths for timingSafeEqual; a length mismatch still costs one comparison
  const same = timingSafeEqual(
    a.length === b.length ? a : b,
    b,
  );
  return same && a.length === b.length;
}

/** The host name of a `Host` header (`[::1]:8080` → `::1`), lower-cased. */
export function hostNameOf(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const value = header.trim().toLowerCase();
  if (value.startsWith("[")) {
    const end = value.indexOf("]");
    return end > 0 ? value.slice(1, end) : undefined;
  }
  const colon = value.indexOf(":");
  return colon >= 0 ? value.slice(0, colon) : value;
}

/** The token a request carries: `Authorization: Bearer`, else the cookie. */
export function requestToken(c: Context): string | undefined {
  const auth = c.req.header("authorization");
  if (auth?.toLowerCase().startsWith("bearer ")) return auth.slice(7).trim();
  return getCookie(c, TOKEN_COOKIE);
}

/** Security headers on every response. */
export function securityHeaders(): MiddlewareHandler {
  return async (c, next) => {
    await next();
    c.res.headers.set("Content-Security-Policy", CONTENT_SECURITY_POLICY);
    c.res.headers.set("X-Content-Type-Options", "nosniff");
    c.res.headers.set("Referrer-Policy", "no-referrer");
    c.res.headers.set("X-Frame-Options", "DENY");
  };
}

/** Refuse a request whose `Host` is not one the server answers to (403). */
export function hostGuard(options: GuardOptions): MiddlewareHandler {
  const allowed = new Set(options.allowedHosts.map((h) => h.toLowerCase()));
  return async (c, next) => {
    const name = hostNameOf(c.req.header("host"));
    if (name === undefined || !allowed.has(name)) {
      return c.json(
        {
          error: {
            code: "HOST_REFUSED",
            message: `The Host "${
              c.req.header("host") ?? ""
            }" is not one this server answers to (a DNS-rebinding guard): open the URL odek serve printed, or start it with --allowed-host NAME.`,
          },
        },
        403,
      );
    }
    return await next();
  };
}

/**
 * Refuse a mutating request or a WebSocket upgrade whose `Origin` (when sent) is not this
 * server's, and one a browser marks as cross-site (403).
 */
export function originGuard(options: GuardOptions): MiddlewareHandler {
  const allowed = new Set(options.allowedHosts.map((h) => h.toLowerCase()));
  return async (c, next) => {
    const mutating = !["GET", "HEAD", "OPTIONS"].includes(c.req.method);
    const upgrade = c.req.header("upgrade")?.toLowerCase() === "websocket";
    if (mutating || upgrade) {
      const origin = c.req.header("origin");
      const site = c.req.header("sec-fetch-site");
      let ok = site === undefined || site === "same-origin" || site === "none";
      if (origin !== undefined) {
        try {
          const url = new URL(origin);
          const host = url.hostname.replace(/^\[|\]$/g, "").toLowerCase();
          ok = ok && allowed.has(host) && url.host === (c.req.header("host") ?? "").toLowerCase();
        } catch {
          ok = false;
        }
      }
      if (!ok) {
        return c.json({
          error: {
            code: "ORIGIN_REFUSED",
            message: `Requests from the origin "${
              origin ?? site
            }" are refused: only this server's own page may change things.`,
          },
        }, 403);
      }
    }
    return await next();
  };
}

/** Refuse a request without the token (401). */
export function tokenGuard(options: GuardOptions): MiddlewareHandler {
  return async (c, next) => {
    if (!tokenMatches(requestToken(c), options.token)) {
      return c.json({
        error: {
          code: "UNAUTHORIZED",
          message:
            "The token is missing or wrong: open the URL odek serve printed, or send Authorization: Bearer <token>.",
        },
      }, 401);
    }
    return await next();
  };
}
