/**
 * Connection plumbing of the egress proxy (private to `broker/`): reading a request head,
 * answering with a status, piping bytes both ways, timing out a connect.
 *
 * @module
 */

const MAX_HEAD_BYTES = 32 * 1024;
const HEAD_TIMEOUT_MS = 15_000;
/** Connections served at once; more are answered 503 (a sandbox cannot exhaust the core's files). */
export const MAX_CONNECTIONS = 256;

export async function readHead(
  conn: Deno.Conn,
): Promise<{ text: string; rest: Uint8Array } | null> {
  let buffer = new Uint8Array(0);
  const chunk = new Uint8Array(8192);
  const timer = setTimeout(() => closeQuietly(conn), HEAD_TIMEOUT_MS);
  try {
    while (buffer.length <= MAX_HEAD_BYTES) {
      const n = await conn.read(chunk);
      if (n === null) return null;
      buffer = concat(buffer, chunk.subarray(0, n));
      const end = findBlankLine(buffer);
      if (end >= 0) {
        const text = new TextDecoder("latin1").decode(buffer.subarray(0, end));
        return { text, rest: buffer.slice(end + 4) };
      }
    }
    return null;
  } catch {
    return null;
  } finally {
    clearTimeout(timer);
  }
}

export function findBlankLine(bytes: Uint8Array): number {
  for (let i = 0; i + 3 < bytes.length; i++) {
    if (bytes[i] === 13 && bytes[i + 1] === 10 && bytes[i + 2] === 13 && bytes[i + 3] === 10) {
      return i;
    }
  }
  return -1;
}

export async function within(connecting: Promise<Deno.Conn>, ms: number): Promise<Deno.Conn> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([connecting, timeout]);
  } catch (error) {
    connecting.then(closeQuietly, () => {});
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

/** Copy `from` to `to` until `from` ends, then half-close `to` so the far side sees the end. */
export async function pump(from: Deno.Conn, to: Deno.Conn): Promise<void> {
  await from.readable.pipeTo(to.writable, { preventClose: true }).catch(() => {});
  await to.closeWrite().catch(() => {});
}

/** Answer 503 without reading the request: half-close first, so the client gets the answer. */
export async function refuseBusy(conn: Deno.Conn): Promise<void> {
  await reply(conn, 503, `odek egress serves at most ${MAX_CONNECTIONS} connections at once`);
  await conn.closeWrite().catch(() => {});
  setTimeout(() => closeQuietly(conn), 1000);
}

export async function reply(conn: Deno.Conn, status: number, message: string): Promise<void> {
  const text = {
    400: "Bad Request",
    403: "Forbidden",
    405: "Method Not Allowed",
    407: "Proxy Authentication Required",
    503: "Service Unavailable",
  }[status] ?? "Bad Gateway";
  const body = new TextEncoder().encode(`${message}\n`);
  const challenge = status === 407 ? 'Proxy-Authenticate: Basic realm="odek egress"\r\n' : "";
  const head = `HTTP/1.1 ${status} ${text}\r\nContent-Type: text/plain; charset=utf-8\r\n` +
    challenge +
    `X-Odek-Egress: ${
      status === 403 || status === 407 ? "refused" : "error"
    }\r\nConnection: close\r\n` +
    `Content-Length: ${body.length}\r\n\r\n`;
  await writeAll(conn, concat(new TextEncoder().encode(head), body)).catch(() => {});
}

export async function writeAll(conn: Deno.Conn, data: string | Uint8Array): Promise<void> {
  let bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
  while (bytes.length > 0) bytes = bytes.subarray(await conn.write(bytes));
}

export function concat(a: Uint8Array, b: Uint8Array): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

export function closeQuietly(conn: Deno.Conn): void {
  try {
    conn.close();
  } catch {
    // Already closed.
  }
}
