/**
 * The web tools' handlers, `http_request` and `browser` (entries in `_catalogue/web_tools.ts`),
 * served by the web tool child (`web.ts`). Requests leave only through the core's egress proxy,
 * by the child's {@linkcode EgressClient}, which every handler gets in its context.
 *
 * @module
 */
import type { ToolArgs } from "./_catalogue/mod.ts";
import type { ToolContext } from "./_catalogue/child_server.ts";
import { htmlToPageText } from "./_html_text.ts";
import type { EgressClient, WebResponse } from "./_web_fetch.ts";

/** Body bytes read at most per response (10 MiB, odek-go §4.1 caps a snapshot at 1 MiB). */
export const MAX_READ_BYTES = 10 * 1024 * 1024;
/** Body bytes `http_request` shows (64 KiB). */
export const MAX_SHOWN_BODY_BYTES = 64 * 1024;
/** Characters of page text `browser` returns (1 MiB, odek-go's snapshot cap). */
export const MAX_PAGE_CHARS = 1024 * 1024;

/** What a web handler gets: the call's context and the child's way out. */
export interface WebToolContext extends ToolContext {
  /** The web child's egress client (without network it refuses every request). */
  readonly egress: EgressClient;
}

/**
 * Send one HTTP request through the egress proxy and describe the response.
 *
 * @param args the validated arguments of `http_request`
 * @param context the egress client and the call's abort signal
 * @returns the status line, the headers and the start of a textual body (64 KiB)
 * @throws {ToolFailure} `denied` without network or when the proxy refuses the destination
 *   (an `EgressRefusal` naming it), `failed` when the request cannot be made
 *
 * @example Without network every call is denied, and nothing is requested
 * ```ts
 * import { httpRequest } from "./_web_tools.ts";
 * import { EgressClient } from "./_web_fetch.ts";
 * const context = { egress: new EgressClient(undefined), workspace: "/", roots: [], signal: new AbortController().signal };
 * const args = { url: "http://127.0.0.1:9/", method: "GET" as const, headers: {}, timeout_seconds: 30 };
 * const kind = await httpRequest(args, context).catch((e) => e.kind);
 * if (kind !== "denied") throw new Error(String(kind));
 * ```
 */
export async function httpRequest(
  args: ToolArgs<"http_request">,
  context: WebToolContext,
): Promise<string> {
  const response = await context.egress.send({
    url: args.url,
    method: args.method,
    headers: args.headers,
    body: args.body,
    timeoutMs: args.timeout_seconds * 1000,
    maxBytes: MAX_READ_BYTES,
  }, context.signal);
  return formatHttpResponse(response);
}

/**
 * Fetch a page through the egress proxy and return it as readable text with numbered links.
 *
 * @param args the validated arguments of `browser`
 * @param context the egress client and the call's abort signal
 * @returns the status line, the title, the text and the links
 * @throws {ToolFailure} as {@linkcode httpRequest}
 */
export async function browser(
  args: ToolArgs<"browser">,
  context: WebToolContext,
): Promise<string> {
  const response = await context.egress.send({
    url: args.url,
    method: "GET",
    headers: {
      accept: "text/html,application/xhtml+xml,text/plain;q=0.9,*/*;q=0.5",
    },
    timeoutMs: args.timeout_seconds * 1000,
    maxBytes: MAX_READ_BYTES,
  }, context.signal);
  return formatPage(response);
}

function header(response: WebResponse, name: string): string {
  return response.headers.find(([key]) => key === name)?.[1] ?? "";
}

function statusLine(response: WebResponse): string {
  const size = response.truncated
    ? `more than ${response.body.length} bytes (read ${response.body.length})`
    : `${response.body.length} bytes`;
  const lines = [
    `HTTP ${response.status} ${response.statusText} · ${size} · ${response.url}`,
  ];
  if (response.hops.length > 1) {
    lines.push(`redirects: ${response.hops.join(" → ")}`);
  }
  return lines.join("\n");
}

function isText(contentType: string, body: Uint8Array): boolean {
  if (
    /^(text\/|application\/(json|xml|javascript|[\w.+-]*\+(json|xml)))/i.test(
      contentType,
    )
  ) {
    return true;
  }
  return contentType === "" && !body.subarray(0, 8192).includes(0);
}

/** The `http_request` result: status line, headers, and the start of a textual body. */
function formatHttpResponse(response: WebResponse): string {
  const parts = [statusLine(response), "headers:"];
  for (const [name, value] of response.headers) parts.push(`${name}: ${value}`);
  const { body } = response;
  if (body.length === 0) parts.push("body: (empty)");
  else if (!isText(header(response, "content-type"), body)) {
    parts.push(`body: (binary, ${body.length} bytes, not shown)`);
  } else {
    const shown = body.subarray(0, MAX_SHOWN_BODY_BYTES);
    const cut = body.length > shown.length
      ? ` (first ${shown.length} of ${body.length} bytes)`
      : "";
    parts.push(`body${cut}:`, new TextDecoder().decode(shown));
  }
  return parts.join("\n");
}

/** The `browser` result: title, readable text, numbered links. */
function formatPage(response: WebResponse): string {
  const contentType = header(response, "content-type");
  const head = statusLine(response);
  const decoded = new TextDecoder().decode(response.body);
  if (
    /html/i.test(contentType) ||
    (contentType === "" && /<html|<body|<p[\s>]/i.test(decoded))
  ) {
    const page = htmlToPageText(decoded, response.url);
    const text = page.text.length > MAX_PAGE_CHARS
      ? `${page.text.slice(0, MAX_PAGE_CHARS)}\n[… ${
        page.text.length - MAX_PAGE_CHARS
      } more characters]`
      : page.text;
    const links = page.links.map((link) => `[${link.n}] ${link.text || "(no text)"} — ${link.url}`);
    return [
      head,
      `title: ${page.title || "(none)"}`,
      "",
      text || "(no text)",
      "",
      `links (${links.length}):`,
      ...links,
    ].join("\n");
  }
  if (!isText(contentType, response.body)) {
    return `${head}\n(not a page: ${contentType || "unknown type"}, ${response.body.length} bytes)`;
  }
  return `${head}\n\n${decoded.slice(0, MAX_PAGE_CHARS)}`;
}
