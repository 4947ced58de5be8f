/**
 * The web tool child: `http_request` and `browser`, run by the core in a sandbox whose network
 * namespace has only `lo`. Requests leave through the core's egress proxy (its socket is the
 * argument `--egress-socket=<path>`, present only when the call's network part was approved), which checks
 * every destination, redirects included, at connect time. Proxy environment variables are never
 * read. Same JSON-lines protocol as `tools/files.ts`.
 *
 * @module
 */
import { z } from "zod";
import { htmlToPageText } from "./_html_text.ts";
import { answerRequestLine, serveLines } from "./_serve.ts";
import { EgressClient, type WebResponse } from "./_web_fetch.ts";

/** Body bytes read at most per response (10 MiB, odek-go §4.1 caps a snapshot at 1 MiB). */
export const MAX_READ_BYTES = 10 * 1024 * 1024;
/** Body bytes `http_request` shows (64 KiB). */
export const MAX_SHOWN_BODY_BYTES = 64 * 1024;
/** Characters of page text `browser` returns (1 MiB, odek-go's snapshot cap). */
export const MAX_PAGE_CHARS = 1024 * 1024;

const url = z.string().min(1).max(8192);
const timeout = z.int().min(1).max(120).default(30);

/** Arguments of `http_request`. */
export const HttpRequestArgsSchema = z.strictObject({
  url,
  method: z.enum(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"])
    .default("GET"),
  headers: z.record(z.string().min(1).max(256), z.string().max(8192)).default(
    {},
  ),
  body: z.string().max(1024 * 1024).optional(),
  timeout_seconds: timeout,
});

/** Arguments of `browser`. */
export const BrowserArgsSchema = z.strictObject({
  url,
  timeout_seconds: timeout,
});

/** A web tool: gets the (unused) workspace and the raw arguments, returns the model's text. */
export type WebTool = (
  workspace: string,
  args: Record<string, unknown>,
) => Promise<string>;

/**
 * The web tools, bound to one egress client.
 *
 * @param client the way out (see {@linkcode EgressClient})
 * @returns the tools by name
 *
 * @example Without network every call is denied, and nothing is requested
 * ```ts
 * import { webTools } from "./web.ts";
 * import { EgressClient } from "./_web_fetch.ts";
 * const tools = webTools(new EgressClient(undefined));
 * const denied = await tools.http_request("/tmp", { url: "https://example.com/" }).catch((e) => e.kind);
 * if (denied !== "denied") throw new Error(String(denied));
 * ```
 */
export function webTools(client: EgressClient): Record<string, WebTool> {
  return {
    http_request: async (_workspace, raw) => {
      const args = HttpRequestArgsSchema.parse(raw);
      const response = await client.send({
        url: args.url,
        method: args.method,
        headers: args.headers,
        body: args.body,
        timeoutMs: args.timeout_seconds * 1000,
        maxBytes: MAX_READ_BYTES,
      });
      return formatHttpResponse(response);
    },
    browser: async (_workspace, raw) => {
      const args = BrowserArgsSchema.parse(raw);
      const response = await client.send({
        url: args.url,
        method: "GET",
        headers: {
          accept: "text/html,application/xhtml+xml,text/plain;q=0.9,*/*;q=0.5",
        },
        timeoutMs: args.timeout_seconds * 1000,
        maxBytes: MAX_READ_BYTES,
      });
      return formatPage(response);
    },
  };
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

if (import.meta.main) {
  const flag = Deno.args.find((arg) => arg.startsWith("--egress-socket="));
  const client = new EgressClient(flag?.slice("--egress-socket=".length));
  try {
    const tools = webTools(client);
    await serveLines(
      Deno.stdin.readable,
      Deno.stdout.writable,
      (line) => answerRequestLine(tools, "web", line),
    );
  } finally {
    client.close();
  }
}
