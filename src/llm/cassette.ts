/**
 * The cassette file format: a recording of the chat-completions traffic of one run, replayed
 * later without a network (`odek run --record FILE` / `--replay FILE`).
 *
 * @module
 */
import { z } from "zod";

/**
 * One recorded response: a stream (`chunks`, each the parsed JSON of one SSE `data:` payload, or
 * a string holding a payload that was not JSON, replayed verbatim; `done` tells whether
 * `data: [DONE]` was sent) or a plain body (non-2xx statuses, and 2xx answers that were not SSE).
 */
const CassetteResponseSchema = z.object({
  status: z.number().int().min(100).max(599),
  chunks: z.array(z.unknown()).optional(),
  done: z.boolean().optional(),
  body: z.string().optional(),
}).strict().superRefine((response, ctx) => {
  const streamed = response.chunks !== undefined || response.done !== undefined;
  if (streamed && response.body !== undefined) {
    ctx.addIssue({
      code: "custom",
      message: 'expected either "chunks" and "done" or "body", not both',
    });
  } else if (streamed && (response.chunks === undefined || response.done === undefined)) {
    const missing = response.chunks === undefined ? "chunks" : "done";
    ctx.addIssue({
      code: "custom",
      path: [missing],
      message: `expected "${missing}" beside the other stream field`,
    });
  } else if (!streamed && response.body === undefined) {
    ctx.addIssue({ code: "custom", message: 'expected "chunks" and "done" (a stream) or "body"' });
  }
});

/** One model turn: the request body as sent (redacted) and the response. */
const CassetteTurnSchema = z.object({
  request: z.record(z.string(), z.unknown()),
  response: CassetteResponseSchema,
});

/**
 * The zod schema of a whole cassette file, used to validate it on load.
 *
 * @example Validate a cassette
 * ```ts
 * import { type Cassette, CassetteSchema } from "./cassette.ts";
 * const empty: Cassette = { schema: "odek.cassette/v1", turns: [] };
 * if (!CassetteSchema.safeParse(empty).success) throw new Error("unexpected");
 * if (CassetteSchema.safeParse({ schema: "odek.cassette/v0", turns: [] }).success) throw new Error("bad");
 * ```
 */
export const CassetteSchema = z.object({
  schema: z.literal("odek.cassette/v1"),
  turns: z.array(CassetteTurnSchema),
});
/**
 * A whole cassette: `{ "schema": "odek.cassette/v1", "turns": [...] }`.
 *
 * @example A one-turn cassette
 * ```ts
 * import { type Cassette, CassetteSchema } from "./cassette.ts";
 * const cassette: Cassette = {
 *   schema: "odek.cassette/v1",
 *   turns: [{
 *     request: { model: "m", messages: [{ role: "user", content: "hi" }], stream: true },
 *     response: {
 *       status: 200,
 *       chunks: [{ choices: [{ index: 0, delta: { content: "hello" }, finish_reason: "stop" }] }],
 *       done: true,
 *     },
 *   }],
 * };
 * CassetteSchema.parse(cassette);
 * ```
 */
export type Cassette = z.infer<typeof CassetteSchema>;
