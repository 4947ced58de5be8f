/**
 * A `fetch` whose response bodies stop at a byte limit (private to `mcp/`): a body that grows past
 * it errors the stream, so an HTTP MCP server cannot make odek hold 20 MB. Server-sent-event
 * streams count each event's bytes, not the stream's life.
 *
 * @module
 */

/**
 * @param base the fetch to wrap
 * @param maxBytes the largest body (or SSE event) read
 * @returns the capped fetch
 */
export function cappedFetch(base: typeof fetch, maxBytes: number): typeof fetch {
  return async (input, init) => {
    const response = await base(input, init);
    if (!response.body) return response;
    const events = (response.headers.get("content-type") ?? "").includes("text/event-stream");
    let count = 0;
    const limit = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        if (events) {
          // An event ends at a blank line: count the bytes since the last one.
          const text = new TextDecoder().decode(chunk);
          const end = Math.max(text.lastIndexOf("\n\n"), text.lastIndexOf("\r\n\r\n"));
          count = end === -1 ? count + chunk.length : chunk.length - end;
        } else {
          count += chunk.length;
        }
        if (count > maxBytes) {
          controller.error(
            new Error(
              `the server's response passed ${maxBytes} bytes (this server's maxResponseBytes); it was cut off`,
            ),
          );
          return;
        }
        controller.enqueue(chunk);
      },
    });
    return new Response(response.body.pipeThrough(limit), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}
