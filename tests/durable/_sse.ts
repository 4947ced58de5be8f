/**
 * Reading a Server-Sent Events response in tests: each `run_event` parsed, with its SSE id.
 *
 * @module
 */
import type { RuntimeEvent } from "../../src/runtime/event_subscription.ts";

/** One `run_event` as the stream sent it. */
export interface SseRunEvent {
  /** The SSE `id:` line. */
  sseId: string;
  event: RuntimeEvent;
}

/**
 * Collect a response's run events until the stream ends (or `stopAfter` events were read, then
 * the response is cancelled: a client that goes away).
 */
export async function readRunEvents(
  response: Response,
  stopAfter = Infinity,
): Promise<SseRunEvent[]> {
  if (response.status !== 200) throw new Error(`SSE ${response.status}: ${await response.text()}`);
  const out: SseRunEvent[] = [];
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return out;
      buffer += value;
      let at: number;
      while ((at = buffer.indexOf("\n\n")) >= 0) {
        const block = buffer.slice(0, at);
        buffer = buffer.slice(at + 2);
        const lines = block.split("\n");
        const field = (name: string) =>
          lines.filter((l) => l.startsWith(`${name}:`)).map((l) => l.slice(name.length + 1).trim())
            .join("\n");
        if (field("event") !== "run_event") continue;
        out.push({ sseId: field("id"), event: JSON.parse(field("data")) });
        if (out.length >= stopAfter) return out;
      }
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}
