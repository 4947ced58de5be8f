/**
 * The catalogue entries of the web tools (issue 6, odek-go §4.1–§4.2), served by the web tool
 * child (`tools/web.ts`, one per scope). Each call is one `network` part on the URL's host:
 * without a gate to approve it, it is refused.
 *
 * @module
 */
import { z } from "zod";
import { toolEntry } from "./tool_entry.ts";

const url = z.string().min(1).max(8192).refine((value) => {
  try {
    return ["http:", "https:"].includes(new URL(value).protocol);
  } catch {
    return false;
  }
}, { message: "url must be an absolute http:// or https:// URL" }).describe(
  "Absolute http:// or https:// URL",
);
const timeout = z.int().min(1).max(120).default(30).describe(
  "Give up after this many seconds",
);

/** `http_request` and `browser`. */
export const WEB_TOOLS = [
  toolEntry({
    name: "http_request",
    category: "web",
    handler: { module: "_web_tools.ts", export: "httpRequest" },
    rule: { kind: "url", arg: "url" },
    classWithoutGate: "network",
    description:
      "Send one HTTP request and return the status, headers, size and the start of a text body (64 KiB). Follows up to 10 redirects. Loopback, private, link-local/metadata and other internal addresses are refused. Needs network approval.",
    args: z.strictObject({
      url,
      method: z.enum([
        "GET",
        "HEAD",
        "POST",
        "PUT",
        "PATCH",
        "DELETE",
        "OPTIONS",
      ]).default("GET"),
      headers: z.record(z.string().min(1).max(256), z.string().max(8192))
        .default({}),
      body: z.string().max(1024 * 1024).optional().describe("Request body (text, ≤ 1 MiB)"),
      timeout_seconds: timeout,
    }),
  }),
  toolEntry({
    name: "browser",
    category: "web",
    handler: { module: "_web_tools.ts", export: "browser" },
    rule: { kind: "url", arg: "url" },
    classWithoutGate: "network",
    description:
      "Fetch a web page and return its title, readable text and numbered links (no JavaScript runs). Follows up to 10 redirects. Internal addresses are refused. Needs network approval.",
    args: z.strictObject({ url, timeout_seconds: timeout }),
  }),
] as const;
