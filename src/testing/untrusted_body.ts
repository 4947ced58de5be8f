/**
 * Reading tool results in tests: the text inside the untrusted-content boundary.
 *
 * @module
 */

const BOUNDARY =
  /<(untrusted_content_[0-9a-f]{16}) source="[^"]*">\n([\s\S]*)\n<\/\1>(?:\n\[odek: [^\n]*\])?$/;

/**
 * The body of a fenced tool result (the text between `<untrusted_content_<nonce> …>` and its
 * closing tag), prefixed with `error (<kind>): ` for a fenced failure, so tests can compare the
 * output itself. Content without a boundary (odek's own failures) is returned unchanged.
 *
 * @param content the `content` of a `role: "tool"` message
 * @returns the output text as the tool produced it (after neutralising, redaction and the cap)
 *
 * @example
 * ```ts
 * import { untrustedBody } from "./untrusted_body.ts";
 * const content = 'Output of shell follows…\n<untrusted_content_0123456789abcdef source="shell">\nhi\n</untrusted_content_0123456789abcdef>';
 * if (untrustedBody(content) !== "hi") throw new Error(untrustedBody(content));
 * ```
 */
export function untrustedBody(content: string): string {
  const match = BOUNDARY.exec(content);
  if (!match) return content;
  const error = /^(error \([a-z_]+\)):\n/.exec(content);
  return error ? `${error[1]}: ${match[2]}` : match[2];
}
