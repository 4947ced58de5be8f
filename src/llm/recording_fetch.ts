/**
 * A fetch that passes requests through and records chat-completions traffic into a cassette.
 *
 * @module
 */
import { redactChunks } from "./_redact_chunks.ts";
import type { Cassette } from "./cassette.ts";
import { writeCassette } from "./_cassette_file.ts";
import { SseCollector } from "./_sse_collector.ts";

type CassetteResponse = Cassette["turns"][number]["response"];

/** Options for {@linkcode recordingFetch}. */
export interface RecordingFetchOptions {
  /**
   * Applied to every string value of the request body and of each chunk (and to non-JSON
   * payloads and error bodies as a whole) before anything is written.
   */
  redact: (text: string) => string;
  /** The fetch that really sends the requests. @default globalThis.fetch */
  inner?: typeof fetch;
}

/**
 * Wraps `inner` so that each `POST …/chat/completions` exchange becomes one cassette turn
 * (see {@linkcode Cassette}). Streamed (`text/event-stream`) responses are teed: the caller
 * reads the same bytes, and the turn is saved once the stream ends, `data: [DONE]` arrives or
 * the reader cancels; other responses (error statuses, plain JSON) are read whole and saved as
 * `body`. After every turn the whole cassette is rewritten atomically (temp file + rename, mode
 * 0600). The file starts empty: a new recording replaces an old one.
 *
 * Only bodies are recorded, never headers, so the `Authorization` header never reaches the file.
 * Other requests pass through unrecorded.
 *
 * Streamed output is redacted channel by channel as a whole (see `redactChunks`): a secret the
 * model spread over several chunks is caught, and its redacted text lands in the channel's first
 * chunk.
 *
 * @param file the cassette path; its folder must exist
 * @param options the redactor and the inner fetch
 * @returns a fetch to hand to {@linkcode OpenAIModel}
 * @throws {OdekError} `CASSETTE_INVALID` (from the returned fetch, or from reading the stream)
 *   when the cassette cannot be written
 *
 * @example Record one turn from the fake server
 * ```ts
 * import { recordingFetch, type RecordingFetchOptions } from "./recording_fetch.ts";
 * import { startFakeOpenAIServer } from "../testing/fake_openai_server.ts";
 * await using server = await startFakeOpenAIServer({ turns: [{ text: "hi" }] });
 * const dir = await Deno.makeTempDir();
 * const options: RecordingFetchOptions = { redact: (t) => t.replaceAll("sk-1", "***") };
 * const record = recordingFetch(`${dir}/run.json`, options);
 * const res = await record(`${server.url}/chat/completions`, {
 *   method: "POST",
 *   body: JSON.stringify({ model: "m", stream: true, messages: [{ role: "user", content: "sk-1" }] }),
 * });
 * await res.text();
 * const saved = JSON.parse(await Deno.readTextFile(`${dir}/run.json`));
 * if (saved.turns[0].request.messages[0].content !== "***") throw new Error("not redacted");
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export function recordingFetch(file: string, options: RecordingFetchOptions): typeof fetch {
  const inner = options.inner ?? ((input, init) => fetch(input, init));
  const cassette: Cassette = { schema: "odek.cassette/v1", turns: [] };
  let writes: Promise<void> = Promise.resolve();
  let count = 0;
  const save = (index: number, request: Record<string, unknown>, response: CassetteResponse) => {
    cassette.turns[index] = { request, response };
    const snapshot = { ...cassette, turns: cassette.turns.filter((t) => t !== undefined) };
    writes = writes.catch(() => {}).then(() => writeCassette(file, snapshot));
    return writes;
  };
  return async (input, init) => {
    const request = new Request(input, init);
    if (request.method !== "POST" || !new URL(request.url).pathname.endsWith("/chat/completions")) {
      return inner(request);
    }
    const requestBody = recordedBody(await request.clone().text(), options.redact);
    const index = count++;
    const response = await inner(request);
    const { status, statusText, headers } = response;
    const streamed = (headers.get("content-type") ?? "").includes("text/event-stream");
    if (response.ok && streamed && response.body) {
      const body = teeStream(response.body, (collector) =>
        save(index, requestBody, {
          status,
          chunks: redactChunks(collector.chunks, options.redact),
          done: collector.done,
        }));
      return new Response(body, { status, statusText, headers });
    }
    const text = await response.text();
    await save(index, requestBody, { status, body: options.redact(text) });
    return new Response(text, { status, statusText, headers });
  };
}

/** The request body as JSON with redacted strings (non-JSON bodies are kept under `_unparsed`). */
function recordedBody(text: string, redact: (text: string) => string): Record<string, unknown> {
  try {
    const json = JSON.parse(text);
    if (json && typeof json === "object" && !Array.isArray(json)) {
      return redactStrings(json, redact) as Record<string, unknown>;
    }
  } catch {
    // kept below as text
  }
  return { _unparsed: redact(text) };
}

/** A copy of `value` with `redact` applied to every string in it (keys are kept). */
function redactStrings(value: unknown, redact: (text: string) => string): unknown {
  if (typeof value === "string") return redact(value);
  if (Array.isArray(value)) return value.map((item) => redactStrings(item, redact));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, redactStrings(item, redact)]),
    );
  }
  return value;
}

/**
 * Passes `body` through unchanged while collecting its SSE payloads; `onEnd` runs (and is
 * awaited) before `[DONE]` or the end reaches the reader, or when the reader cancels.
 */
function teeStream(
  body: ReadableStream<Uint8Array>,
  onEnd: (collector: SseCollector) => Promise<void>,
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  const collector = new SseCollector();
  let saved: Promise<void> | undefined;
  const finish = () => {
    if (saved === undefined) {
      collector.end();
      saved = onEnd(collector);
    }
    return saved;
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      let result: ReadableStreamReadResult<Uint8Array>;
      try {
        result = await reader.read();
      } catch (err) {
        await finish().catch(() => {});
        throw err;
      }
      if (result.done) {
        await finish();
        return controller.close();
      }
      collector.push(result.value);
      if (collector.done) await finish();
      controller.enqueue(result.value);
    },
    async cancel(reason) {
      await finish().catch(() => {});
      await reader.cancel(reason);
    },
  });
}
