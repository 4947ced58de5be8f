/**
 * The web tools as the core knows them (issue 6, odek-go §4.1–§4.2): names, what the model is
 * told, argument schemas. They run in the web tool child (`tools/web.ts`).
 *
 * @module
 */
import { z } from "zod";
import type { BuiltinTool } from "./builtin_tools.ts";

const url = z.string().min(1).max(8192).refine((value) => {
  try {
    return ["http:", "https:"].includes(new URL(value).protocol);
  } catch {
    return false;
  }
}, { message: "url must be an absolute http:// or https:// URL" }).describe(
  "Absolute http:// or https:// URL",
);
const timeout = z.int().min(1).max(120).optional().describe(
  "Give up after this many seconds (default 30)",
);

/** `http_request` and `browser`. */
export const WEB_TOOLS: readonly BuiltinTool[] = [
  {
    name: "http_request",
    category: "web",
    description:
      "Send one HTTP request and return the status, headers, size and the start of a text body (64 KiB). Follows up to 10 redirects. Loopback, private, link-local/metadata and other internal addresses are refused. Needs network approval.",
    schema: z.strictObject({
      url,
      method: z.enum(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]).optional()
        .describe("Default GET"),
      headers: z.record(z.string().min(1).max(256), z.string().max(8192)).optional(),
      body: z.string().max(1024 * 1024).optional().describe("Request body (text, ≤ 1 MiB)"),
      timeout_seconds: timeout,
    }),
  },
  {
    name: "browser",
    category: "web",
    description:
      "Fetch a web page and return its title, readable text and numbered links (no JavaScript runs). Follows up to 10 redirects. Internal addresses are refused. Needs network approval.",
    schema: z.strictObject({ url, timeout_seconds: timeout }),
  },
];
