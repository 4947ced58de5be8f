/**
 * A fetch that answers chat-completions requests from a cassette, without a network.
 *
 * @module
 */
import { OdekError } from "../_util/odek_error.ts";
import type { Cassette } from "./cassette.ts";
import { readCassette } from "./_cassette_file.ts";

type CassetteResponse = Cassette["turns"][number]["response"];

/**
 * Loads a cassette (see {@linkcode Cassette}) and returns a fetch whose Nth
 * `POST …/chat/completions` request gets turn N's response: a real `text/event-stream` response
 * (`data: <json>\n\n` per chunk, then `data: [DONE]\n\n` when the turn recorded it) or the
 * recorded status and body. It never touches the network.
 *
 * Only the turn index and the `tool_call_id`s of the request's `role: "tool"` messages are
 * compared with the recording, never volatile text (dates, paths, tool output).
 *
 * @param file the cassette path
 * @returns a fetch to hand to {@linkcode OpenAIModel}
 * @throws {OdekError} `CASSETTE_INVALID` when the file is missing, not JSON or not a v1 cassette.
 *   The returned fetch rejects with `CASSETTE_MISMATCH` when the run asks for more turns than
 *   the cassette has, when the tool-call ids of request N differ from the recorded ones, or for
 *   any request that is not a chat completion; with the signal's reason when aborted.
 *
 * @example Replay a one-turn cassette
 * ```ts
 * import { replayFetch } from "./replay_fetch.ts";
 * const dir = await Deno.makeTempDir();
 * const chunk = { choices: [{ index: 0, delta: { content: "hi" }, finish_reason: "stop" }] };
 * await Deno.writeTextFile(`${dir}/c.json`, JSON.stringify({
 *   schema: "odek.cassette/v1",
 *   turns: [{ request: { messages: [] }, response: { status: 200, chunks: [chunk], done: true } }],
 * }));
 * const replay = await replayFetch(`${dir}/c.json`);
 * const res = await replay("http://model.invalid/v1/chat/completions", {
 *   method: "POST",
 *   body: JSON.stringify({ messages: [] }),
 * });
 * if (!(await res.text()).endsWith("data: [DONE]\n\n")) throw new Error("unexpected");
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function replayFetch(file: string): Promise<typeof fetch> {
  const cassette = await readCassette(file);
  let count = 0;
  return async (input, init) => {
    const request = new Request(input, init);
    request.signal.throwIfAborted();
    const path = new URL(request.url).pathname;
    if (request.method !== "POST" || !path.endsWith("/chat/completions")) {
      throw new OdekError(
        "CASSETTE_MISMATCH",
        `The run sent ${request.method} ${path} while replaying the cassette ${file}, which ` +
          `holds only chat completions: re-record it with --record.`,
      );
    }
    const number = ++count;
    const turn = cassette.turns[number - 1];
    if (turn === undefined) {
      const have = cassette.turns.length;
      throw new OdekError(
        "CASSETTE_MISMATCH",
        `The run asked for model turn ${number} but the cassette ${file} has ${have} ` +
          `turn${have === 1 ? "" : "s"}: re-record it with --record.`,
      );
    }
    const live = toolCallIds(parseBody(await request.text()));
    const recorded = toolCallIds(turn.request);
    if (live.join("\u0000") !== recorded.join("\u0000")) {
      throw new OdekError(
        "CASSETTE_MISMATCH",
        `Model turn ${number} of the run does not match the cassette ${file}: the request ` +
          `carries tool results for ${list(live)} but the recording has ${list(recorded)}. ` +
          `The run diverged from the recording: re-record it with --record.`,
      );
    }
    return toResponse(turn.response);
  };
}

/** A real response for a recorded one. */
function toResponse(response: CassetteResponse): Response {
  if (response.chunks === undefined) {
    return new Response(response.body ?? "", {
      status: response.status,
      headers: { "content-type": "application/json" },
    });
  }
  const frames = response.chunks.map((chunk) =>
    `data: ${typeof chunk === "string" ? chunk : JSON.stringify(chunk)}\n\n`
  );
  if (response.done) frames.push("data: [DONE]\n\n");
  return new Response(frames.join(""), {
    status: response.status,
    headers: { "content-type": "text/event-stream" },
  });
}

function parseBody(text: string): Record<string, unknown> {
  try {
    const json = JSON.parse(text);
    return json && typeof json === "object" ? json : {};
  } catch {
    return {};
  }
}

/** The `tool_call_id`s of the `role: "tool"` messages of a request body, in order. */
function toolCallIds(body: Record<string, unknown>): string[] {
  const messages: unknown[] = Array.isArray(body.messages) ? body.messages : [];
  return messages
    .filter((m): m is { role: string; tool_call_id?: unknown } =>
      typeof m === "object" && m !== null && (m as { role?: unknown }).role === "tool"
    )
    .map((m) => String(m.tool_call_id));
}

function list(ids: string[]): string {
  return ids.length === 0 ? "no tool calls" : `[${ids.join(", ")}]`;
}
