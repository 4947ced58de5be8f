import assert from "node:assert/strict";
import { startFakeOpenAIServer } from "../../src/testing/fake_openai_server.ts";

type Message = Record<string, unknown>;

const call = (id: string, args = "{}") => ({
  id,
  type: "function",
  function: { name: "glob", arguments: args },
});
const assistant = (...calls: unknown[]): Message => ({
  role: "assistant",
  content: null,
  tool_calls: calls,
});
const result = (id: string): Message => ({ role: "tool", tool_call_id: id, content: "r" });
const user: Message = { role: "user", content: "go" };

async function post(url: string, messages: Message[]) {
  const res = await fetch(`${url}/chat/completions`, {
    method: "POST",
    body: JSON.stringify({ model: "m", messages }),
  });
  return { status: res.status, body: await res.json() };
}

Deno.test("fake server strict mode refuses histories strict providers refuse, with a 400", async (t) => {
  const cases: [string, Message[], RegExp][] = [
    [
      "a call without its result",
      [user, assistant(call("a"), call("b")), result("a"), user],
      /did not have response messages: b/,
    ],
    [
      "a call whose result never comes, at the end",
      [user, assistant(call("a"))],
      /did not have response messages: a/,
    ],
    [
      "a result without its call",
      [user, assistant(call("a")), result("a"), result("zzz")],
      /must be a response to a preceding message with 'tool_calls' \(tool_call_id zzz\)/,
    ],
    [
      "a result answered twice",
      [user, assistant(call("a")), result("a"), assistant(call("b")), result("b"), result("a")],
      /Duplicate tool message: tool_call_id a/,
    ],
    [
      "a repeated id across turns",
      [user, assistant(call("a")), result("a"), assistant(call("a")), result("a")],
      /tool_use ids must be unique: a/,
    ],
    [
      "a repeated id within one message",
      [user, assistant(call("a"), call("a")), result("a"), result("a")],
      /tool_use ids must be unique: a/,
    ],
    ["an empty id", [user, assistant(call("")), result("")], /\.id must be a non-empty string/],
    [
      "non-JSON arguments",
      [user, assistant(call("a", '{"path":"a"}{"path":"b"}')), result("a")],
      /arguments must be a JSON object/,
    ],
    [
      "whitespace arguments",
      [user, assistant(call("a", "   \n ")), result("a")],
      /arguments must be a JSON object/,
    ],
    ["array arguments", [user, assistant(call("a", "[]")), result("a")], /must be a JSON object/],
  ];
  await using server = await startFakeOpenAIServer({ turns: [], strict: true });
  for (const [name, messages, message] of cases) {
    await t.step(name, async () => {
      const before = server.requests.length;
      const { status, body } = await post(server.url, messages);
      assert.equal(status, 400);
      assert.equal(body.error.type, "invalid_request_error");
      assert.match(body.error.message, message);
      const recorded = server.requests[before];
      assert.equal(recorded.refused, true);
      assert.equal(recorded.refusal, body.error.message);
    });
  }
});

Deno.test("fake server strict mode (the default) passes a valid history to the script, and off it passes anything", async () => {
  const valid = [
    { role: "system", content: "s" },
    user,
    assistant(call("a"), call("b", '{"pattern":"*.ts"}')),
    result("b"),
    result("a"),
    { role: "assistant", content: "both done" },
    user,
  ];
  await using strict = await startFakeOpenAIServer({ turns: [{ text: "fine" }], strict: true });
  const accepted = await post(strict.url, valid);
  assert.equal(accepted.status, 200);
  assert.equal(accepted.body.choices[0].message.content, "fine");
  await using byDefault = await startFakeOpenAIServer({ turns: [{ text: "strict" }] });
  const refused = await post(byDefault.url, [user, assistant(call("a", "nope"))]);
  assert.equal(refused.status, 400);
  assert.equal(byDefault.requests[0].refused, true);
  await using lax = await startFakeOpenAIServer({ turns: [{ text: "lax" }], strict: false });
  const broken = await post(lax.url, [user, assistant(call("a", "nope"))]);
  assert.equal(broken.status, 200);
  assert.equal(lax.requests[0].refused, undefined);
});

Deno.test("fake server streams raw deltas as they are scripted", async () => {
  const deltas = [
    { tool_calls: [{ index: 0, id: "c1", function: { name: "read_file", arguments: "{}" } }] },
    { tool_calls: [{ index: 0, id: "c2", function: { name: "file_info", arguments: "{}" } }] },
  ];
  await using server = await startFakeOpenAIServer({
    turns: [{ deltas, finishReason: "tool_calls" }],
  });
  const res = await fetch(`${server.url}/chat/completions`, {
    method: "POST",
    body: JSON.stringify({ model: "m", messages: [user], stream: true }),
  });
  const chunks = (await res.text()).split("\n\n").filter((f) => f.startsWith("data: {"))
    .map((f) => JSON.parse(f.slice(6)));
  assert.deepEqual(chunks.slice(1, 3).map((c) => c.choices[0].delta), deltas);
  assert.equal(chunks[3].choices[0].finish_reason, "tool_calls");
});

Deno.test("fake server lists the scripted models on GET /v1/models", async () => {
  await using server = await startFakeOpenAIServer({
    turns: [],
    models: ["small", { id: "large", context_length: 32_768 }],
  });
  const res = await fetch(`${server.url}/models`);
  const body = await res.json();
  assert.equal(body.object, "list");
  assert.deepEqual(body.data.map((m: { id: string }) => m.id), ["small", "large"]);
  assert.equal(body.data[1].context_length, 32_768);
  assert.equal(body.data[0].owned_by, "odek-fake");
});
