/**
 * HTTP for the web tools: every request leaves through the core's egress proxy (which resolves,
 * checks the address policy and the allow-list, and connects to the address it checked), every
 * redirect is followed by hand and goes through the proxy again, and proxy environment variables
 * are never read.
 *
 * @module
 */
import { type Forwarder, startForwarder } from "./egress_forwarder.ts";
import { EGRESS_POLICY as POLICY, EgressRefusal, ToolFailure } from "./_catalogue/tool_failure.ts";

/** Redirects followed at most (odek-go §4.1). */
export const MAX_REDIRECTS = 10;

/** One request of a web tool. */
export interface WebRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body?: string;
  timeoutMs: number;
  /** Body bytes read at most; the rest is discarded (and counted as not read). */
  maxBytes: number;
}

/** What came back, after redirects. */
export interface WebResponse {
  /** The URL that answered (the last hop). */
  url: string;
  /** Every URL requested, in order (the first is the one asked for). */
  hops: string[];
  status: number;
  statusText: string;
  headers: [string, string][];
  /** At most `maxBytes` of the body. */
  body: Uint8Array;
  /** True when the body was longer than `maxBytes`. */
  truncated: boolean;
}

/**
 * The web child's way out: a loopback forwarder to the egress socket (started on first use) and
 * a fetch client whose proxy is that forwarder.
 */
export class EgressClient {
  readonly #socket: string | undefined;
  #forwarder: Forwarder | null = null;
  #client: Deno.HttpClient | null = null;

  /** @param socket the egress proxy's socket (`--egress-socket`), or undefined: no network */
  constructor(socket: string | undefined) {
    this.#socket = socket;
  }

  /**
   * Send a request through the egress proxy, following up to {@linkcode MAX_REDIRECTS}
   * redirects (303, and 301/302 after a POST, become GET without a body; credentials are dropped
   * when the origin changes).
   *
   * @param request the request
   * @param signal aborts the request
   * @returns the final response, its body capped
   * @throws {ToolFailure} `denied` without network; {@linkcode EgressRefusal} when the proxy
   *   refuses a destination (or, through a tunnel, cannot reach it);
   *   `failed` for a bad scheme, too many redirects, a timeout or a connection failure
   */
  async send(request: WebRequest, signal?: AbortSignal): Promise<WebResponse> {
    const client = this.#clientOrRefuse(request.url);
    const timeout = AbortSignal.timeout(request.timeoutMs);
    const abort = signal ? AbortSignal.any([signal, timeout]) : timeout;
    let { method, body } = request;
    const headers = new Headers(request.headers);
    let url = checkedUrl(request.url);
    const hops: string[] = [];
    for (let hop = 0;; hop++) {
      hops.push(url.href);
      let response: Response;
      try {
        response = await fetch(url, {
          method,
          headers,
          body,
          redirect: "manual",
          client,
          signal: abort,
        });
      } catch (error) {
        throw connectFailure(
          url,
          error,
          timeout.aborted ? request.timeoutMs : null,
        );
      }
      if (response.headers.get("x-odek-egress") === "refused") {
        const reason = (await response.text()).trim();
        throw new EgressRefusal(url, `${reason}. ${POLICY}`);
      }
      const location = response.headers.get("location");
      if (
        ![301, 302, 303, 307, 308].includes(response.status) ||
        location === null
      ) {
        const { bytes, truncated } = await readCapped(
          response,
          request.maxBytes,
        );
        return {
          url: url.href,
          hops,
          status: response.status,
          statusText: response.statusText,
          headers: [...response.headers],
          body: bytes,
          truncated,
        };
      }
      await response.body?.cancel();
      if (hop >= MAX_REDIRECTS) {
        throw new ToolFailure(
          "failed",
          `Stopped after ${MAX_REDIRECTS} redirects (${hops.join(" → ")} → ${location})`,
        );
      }
      const next = checkedUrl(new URL(location, url).href);
      if (next.origin !== url.origin) {
        for (const name of ["authorization", "cookie", "proxy-authorization"]) {
          headers.delete(name);
        }
      }
      if (
        response.status === 303 || (response.status <= 302 && method === "POST")
      ) {
        method = method === "HEAD" ? "HEAD" : "GET";
        body = undefined;
        headers.delete("content-type");
      }
      url = next;
    }
  }

  /**
   * A plain `fetch` through the egress proxy, for library tools (`tools/module_tool.ts`): the
   * proxy checks every destination, redirects included (fetch follows them through the same
   * client).
   *
   * @param input what `fetch` takes
   * @param init what `fetch` takes; its `client` is replaced
   * @returns the response
   * @throws {ToolFailure} `denied` without network; {@linkcode EgressRefusal} when the proxy
   *   refuses a destination (or, through a tunnel, cannot reach it); `failed` for a connection
   *   failure
   */
  async fetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
    const url = new URL(input instanceof Request ? input.url : input);
    const client = this.#clientOrRefuse(url.href);
    let response: Response;
    try {
      response = await fetch(input, { ...init, client });
    } catch (error) {
      if ((error as Error)?.name === "AbortError") throw error;
      throw connectFailure(url, error, null);
    }
    if (response.headers.get("x-odek-egress") === "refused") {
      const reason = (await response.text()).trim();
      throw new EgressRefusal(new URL(response.url || url.href), `${reason}. ${POLICY}`);
    }
    return response;
  }

  /** Stop the forwarder and the client. */
  close(): void {
    this.#client?.close();
    this.#forwarder?.close();
  }

  #clientOrRefuse(url: string): Deno.HttpClient {
    if (this.#socket === undefined) {
      throw new ToolFailure(
        "denied",
        `No network was granted to this call, so ${url} was not requested. A web tool reaches the network only when its network part is approved.`,
      );
    }
    this.#forwarder ??= startForwarder(this.#socket);
    this.#client ??= Deno.createHttpClient({
      proxy: { url: `http://127.0.0.1:${this.#forwarder.port}` },
    });
    return this.#client;
  }
}

function checkedUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ToolFailure(
      "invalid_arguments",
      `Not a URL: ${JSON.stringify(raw)}`,
    );
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new ToolFailure(
      "failed",
      `Only http:// and https:// URLs are fetched, not ${url.href}`,
    );
  }
  if (url.username || url.password) {
    throw new ToolFailure(
      "invalid_arguments",
      "URLs with credentials are refused",
    );
  }
  return url;
}

function connectFailure(
  url: URL,
  error: unknown,
  timedOutAfter: number | null,
): ToolFailure {
  if (timedOutAfter !== null) {
    return new ToolFailure(
      "failed",
      `${url.href} did not answer within ${timedOutAfter} ms`,
    );
  }
  const text = `${error}${(error as Error)?.cause ? ` (${(error as Error).cause})` : ""}`;
  if (/tunnel/i.test(text)) {
    const port = url.port || (url.protocol === "https:" ? "443" : "80");
    return new EgressRefusal(
      url,
      `The egress proxy refused or could not reach ${url.hostname}:${port}. ${POLICY}; an unreachable host is reported the same way.`,
    );
  }
  return new ToolFailure("failed", `Cannot fetch ${url.href}: ${text}`);
}

async function readCapped(
  response: Response,
  maxBytes: number,
): Promise<{ bytes: Uint8Array; truncated: boolean }> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  if (response.body !== null) {
    const reader = response.body.getReader();
    while (true) {
      const { done, value } = await reader.read();
      if (done) break;
      const room = maxBytes - size;
      chunks.push(value.subarray(0, room));
      size += Math.min(room, value.length);
      if (value.length > room) {
        truncated = true;
        await reader.cancel();
        break;
      }
    }
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.length;
  }
  return { bytes, truncated };
}
