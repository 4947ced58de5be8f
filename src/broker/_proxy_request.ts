/**
 * The request head an HTTP proxy client sends: `CONNECT host:port` (HTTPS and any TCP tunnel)
 * or an absolute-URI plain HTTP request (RFC 9112 §3.2.2, §3.2.3). Parsed here by hand because
 * the proxy must keep the raw connection after the head, which Deno's HTTP servers do not hand
 * over for CONNECT.
 *
 * @module
 */

/** What the client asked for. */
export type ProxyRequest =
  | { type: "connect"; host: string; port: number; credential?: string }
  /** `head` is the request rewritten to origin form, with `Connection: close`, ready to send. */
  | { type: "forward"; host: string; port: number; head: string; credential?: string }
  | { type: "bad"; status: 400 | 405; message: string };

/**
 * The password of a `Proxy-Authorization: Basic …` header (RFC 7617), which clients send when
 * their proxy URL carries credentials (`http://odek:<token>@127.0.0.1:<port>`), or `undefined`.
 */
function credentialOf(headerLines: string[]): string | undefined {
  for (const line of headerLines) {
    const m = /^proxy-authorization:\s*basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(line);
    if (!m) continue;
    try {
      const decoded = atob(m[1]);
      const colon = decoded.indexOf(":");
      return colon < 0 ? undefined : decoded.slice(colon + 1);
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/** Headers a proxy consumes (RFC 9110 §7.6.1) and never forwards. */
const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "proxy-authorization",
  "proxy-authenticate",
  "te",
  "trailer",
  "upgrade",
]);

/**
 * Parse a request head (everything before the blank line, without it).
 *
 * @param head the request line and the header lines, separated by CRLF
 * @returns the destination, or why the request is refused
 */
export function parseProxyRequest(head: string): ProxyRequest {
  const [requestLine, ...headerLines] = head.split("\r\n");
  const match = /^([A-Z]+) (\S+) HTTP\/1\.[01]$/.exec(requestLine);
  if (match === null) return bad(`not an HTTP/1.x request line: ${requestLine.slice(0, 100)}`);
  const [, method, target] = match;
  if (method === "CONNECT") {
    const authority = /^(\[[0-9A-Fa-f:.%\w-]+\]|[^\s:/@\[\]]+):(\d{1,5})$/.exec(target);
    const port = authority ? Number(authority[2]) : NaN;
    if (!authority || !(port >= 1 && port <= 65535)) {
      return bad(`CONNECT needs host:port, got ${target.slice(0, 100)}`);
    }
    const credential = credentialOf(headerLines);
    return {
      type: "connect",
      host: authority[1].replace(/^\[(.*)\]$/, "$1"),
      port,
      ...(credential !== undefined ? { credential } : {}),
    };
  }
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return bad(`a proxy request needs an absolute http:// URL, got ${target.slice(0, 100)}`);
  }
  if (url.protocol !== "http:") {
    return {
      type: "bad",
      status: 405,
      message: `only http:// is forwarded as is; use CONNECT for ${url.protocol}`,
    };
  }
  if (url.username || url.password) return bad("credentials in a proxied URL are refused");
  const headers: string[] = [];
  let hasHost = false;
  for (const line of headerLines) {
    const colon = line.indexOf(":");
    if (colon <= 0 || /^\s/.test(line)) return bad("malformed header line");
    const name = line.slice(0, colon).trim().toLowerCase();
    if (HOP_BY_HOP.has(name)) continue;
    if (name === "host") {
      hasHost = true;
      headers.push(`Host: ${url.host}`);
      continue;
    }
    headers.push(line);
  }
  if (!hasHost) headers.unshift(`Host: ${url.host}`);
  headers.push("Connection: close");
  const origin = `${url.pathname}${url.search}`;
  const credential = credentialOf(headerLines);
  return {
    ...(credential !== undefined ? { credential } : {}),
    type: "forward",
    host: url.hostname.replace(/^\[(.*)\]$/, "$1"),
    port: url.port === "" ? 80 : Number(url.port),
    head: `${method} ${origin} HTTP/1.1\r\n${headers.join("\r\n")}\r\n\r\n`,
  };
}

function bad(message: string): ProxyRequest {
  return { type: "bad", status: 400, message };
}
