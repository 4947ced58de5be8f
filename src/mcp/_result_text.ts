/**
 * An MCP tool result as the text the model reads (private to `mcp/`): text blocks as they are,
 * other blocks described in a line, structured content as JSON when there is no text, and the
 * whole cut at the server's `maxResultChars` with odek-go's truncation notice.
 *
 * @module
 */

/** The parts of a `CallToolResult` odek reads (validated by the SDK). */
export interface ToolResultLike {
  content?: readonly Record<string, unknown>[];
  structuredContent?: unknown;
  isError?: boolean;
}

/**
 * @param result the server's result
 * @param where the server and tool, for the notice
 * @param maxChars characters kept
 * @returns the text, cut with a notice when longer than `maxChars`
 */
export function resultText(
  result: ToolResultLike,
  where: { server: string; tool: string },
  maxChars: number,
): string {
  const parts: string[] = [];
  for (const block of result.content ?? []) parts.push(blockText(block));
  if (parts.length === 0 && result.structuredContent !== undefined) {
    parts.push(JSON.stringify(result.structuredContent, null, 2));
  }
  const text = parts.join("\n");
  if (text.length <= maxChars) return text;
  return `${
    text.slice(0, maxChars)
  }\n[odek: result truncated — server "${where.server}" tool "${where.tool}" produced ${text.length} chars, exceeding the configured max_result_chars=${maxChars}; the full result is available via the retained artifact references, if any]`;
}

function blockText(block: Record<string, unknown>): string {
  switch (block.type) {
    case "text":
      return String(block.text ?? "");
    case "image":
    case "audio": {
      const bytes = typeof block.data === "string" ? Math.floor(block.data.length * 3 / 4) : 0;
      return `[${block.type}: ${String(block.mimeType ?? "unknown type")}, ${bytes} bytes]`;
    }
    case "resource_link":
      return `[resource: ${String(block.uri ?? "")}${
        block.name ? ` (${String(block.name)})` : ""
      }]`;
    case "resource": {
      const resource = (block.resource ?? {}) as Record<string, unknown>;
      if (typeof resource.text === "string") {
        return `[resource ${String(resource.uri ?? "")}]\n${resource.text}`;
      }
      const size = typeof resource.blob === "string" ? Math.floor(resource.blob.length * 3 / 4) : 0;
      return `[resource ${String(resource.uri ?? "")}: ${
        String(resource.mimeType ?? "binary")
      }, ${size} bytes]`;
    }
    default:
      return `[${String(block.type ?? "unknown")} content]`;
  }
}
