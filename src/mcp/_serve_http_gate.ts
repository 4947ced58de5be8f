/**
 * The door of `odek mcp serve --http` (private to `mcp/`, no SDK): a request reaches the MCP
 * handler only with the server's token — a bearer header on `/mcp`, or the secret path segment
 * `/<token>/mcp` for clients that cannot send headers — compared in constant time, a `Host` the
 * server answers to and no foreign `Origin` (DNS rebinding), and a body within the cap.
 *
 * @module
 */
import { timingSafeEqual } from "node:crypto";

/** What the gate decided: refuse with this response, or go on with the request. */
export type GateDecision = { refuse: Response } | { request: Request };

/** Options of {@linkcode gateRequest}. */
export interface GateOptions {
  /** The secret (URL-safe). */
  token: string;
  /** Host names (no port; IPv6 in brackets) the `Host` header may name. */
  hosts: readonly string[];
  /** Largest request body, in bytes. */
  maxBodyBytes: number;
}

/** A random token of 32 bytes, base64url (43 characters). */
export function newToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return btoa(String.fromCharCode(...bytes)).replaceAll("+", "-").replaceAll("/", "_")
    .replace(/=+$/, "");
}

/** Constant-time equality of two strings (their SHA-256 digests are compared). */
async function same(a: string, b: string): Promise<boolean> {
  const digest = async (s: string) =>
    new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(s)));
  return timingSafeEqual(await digest(a), await digest(b));
}

function refuse(status: number, message: string, extra: Record<string, string> = {}): GateDecision {
  return {
    refuse: new Response(
      JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32000, message } }),
      { status, headers: { "content-type": "application/json", ...extra } },
    ),
  };
}

/** The host name of a `Host` header (port dropped; IPv6 kept in brackets), lowercased. */
function hostName(header: string): string | undefined {
  const match = /^(\[[0-9a-fA-F:.]+\]|[^:\[\]]+)(?::(\d{1,5}))?$/.exec(header.trim());
  return match?.[1].toLowerCase();
}

/**
 * Check one request. The path becomes `/mcp` when the token came in the path.
 *
 * @returns the refusal (401 without the token, 403 for a foreign `Host` or `Origin`, 404 for
 *   another path, 413 for a body over the cap), or the request to serve
 */
export async function gateRequest(request: Request, options: GateOptions): Promise<GateDecision> {
  const url = new URL(request.url);
  const host = request.headers.get("host");
  const name = host ? hostName(host) : undefined;
  if (!name || !options.hosts.includes(name)) {
    return refuse(
      403,
      `Forbidden: this server does not answer to the host ${JSON.stringify(host)}`,
    );
  }
  const origin = request.headers.get("origin");
  if (origin !== null) {
    let originHost: string | undefined;
    try {
      const parsed = new URL(origin);
      originHost = /^https?:$/.test(parsed.protocol) ? parsed.hostname.toLowerCase() : undefined;
    } catch {
      originHost = undefined;
    }
    if (!originHost || !options.hosts.includes(originHost)) {
      return refuse(
        403,
        `Forbidden: requests from the origin ${JSON.stringify(origin)} are refused`,
      );
    }
  }
  const segments = url.pathname.split("/");
  let authorized = false;
  if (segments.length === 3 && segments[2] === "mcp" && segments[1] !== "") {
    authorized = await same(decodeURIComponent(segments[1]), options.token);
    if (!authorized) return refuse(404, "Not found");
  } else if (url.pathname === "/mcp") {
    const auth = request.headers.get("authorization") ?? "";
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(auth)?.[1];
    authorized = bearer !== undefined && await same(bearer, options.token);
    if (!authorized) {
      return refuse(401, "Unauthorized: send the token odek mcp serve printed", {
        "www-authenticate": 'Bearer realm="odek"',
      });
    }
  } else {
    return refuse(404, "Not found");
  }
  const length = Number(request.headers.get("content-length") ?? "0");
  if (!Number.isFinite(length) || length > options.maxBodyBytes) {
    return refuse(413, `Request body over ${options.maxBodyBytes} bytes`);
  }
  let body: ArrayBuffer | undefined;
  if (request.body) {
    body = await readCapped(request.body, options.maxBodyBytes);
    if (!body) return refuse(413, `Request body over ${options.maxBodyBytes} bytes`);
  }
  const inner = new URL(url);
  inner.pathname = "/mcp";
  const headers = new Headers(request.headers);
  headers.delete("authorization");
  return {
    request: new Request(inner, {
      method: request.method,
      headers,
      ...(body !== undefined ? { body } : {}),
      signal: request.signal,
    }),
  };
}

/** The body, or `undefined` once it passes `max` bytes (reading stops there). */
async function readCapped(
  stream: ReadableStream<Uint8Array>,
  max: number,
): Promise<ArrayBuffer | undefined> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => {});
      return undefined;
    }
    chunks.push(value);
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.byteLength;
  }
  return out.buffer;
}
