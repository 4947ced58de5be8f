import assert from "node:assert/strict";
import { requestJson } from "../../src/llm/_request_json.ts";

const tools = [
  { type: "function", function: { name: "shell", parameters: { type: "object" } } },
  { type: "function", function: { name: "read_file", description: 'a "quoted" name' } },
];

Deno.test("requestJson is the body's JSON with the tool list, which it serialises once per list", () => {
  const body = { model: "m", messages: [{ role: "user", content: "hi" }], stream: true };
  const text = requestJson(body, tools);
  assert.deepEqual(JSON.parse(text), { tools, ...body });
  // The next request of the run: another transcript, the same list.
  const next = { ...body, messages: [...body.messages, { role: "assistant", content: "ok" }] };
  assert.deepEqual(JSON.parse(requestJson(next, tools)), { tools, ...next });
  // Another list of the same length is its own.
  const other = [tools[1], tools[0]];
  assert.deepEqual(JSON.parse(requestJson(body, other)).tools, other);
});

Deno.test("requestJson sends no tools field for an empty list, and ignores one in the body", () => {
  assert.deepEqual(JSON.parse(requestJson({ model: "m" }, [])), { model: "m" });
  assert.deepEqual(JSON.parse(requestJson({ model: "m", tools: ["x"] }, [])), { model: "m" });
  assert.deepEqual(JSON.parse(requestJson({}, tools)), { tools });
});
