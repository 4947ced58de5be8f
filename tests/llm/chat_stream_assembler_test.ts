import assert from "node:assert/strict";
import { OdekError } from "../../src/_util/odek_error.ts";
import { ChatStreamAssembler } from "../../src/llm/chat_stream_assembler.ts";
import type { ModelDelta } from "../../src/llm/model.ts";

function chunk(delta: unknown, finish: string | null = null, index = 0) {
  return { choices: [{ index, delta, finish_reason: finish }] };
}

Deno.test("ChatStreamAssembler assembles interleaved calls by index and keeps arguments verbatim", () => {
  const deltas: ModelDelta[] = [];
  const assembler = new ChatStreamAssembler({ iteration: 7, onDelta: (d) => deltas.push(d) });
  assembler.push(chunk({ role: "assistant", content: "" }));
  assembler.push(
    chunk({ tool_calls: [{ index: 1, id: "b", function: { name: "glob", arguments: "" } }] }),
  );
  assembler.push(
    chunk({ tool_calls: [{ index: 0, function: { name: "shell", arguments: '{"comm' } }] }),
  );
  assembler.push(chunk({ tool_calls: [{ index: 1, function: { arguments: "not json" } }] }));
  assembler.push(chunk({ tool_calls: [{ index: 0, function: { arguments: 'and":"ls"}' } }] }));
  assembler.push(chunk({}, "tool_calls"));
  const { message, finishReason, usage } = assembler.finish();
  assert.equal(finishReason, "tool_calls");
  assert.deepEqual(usage, { inputTokens: 0, outputTokens: 0 });
  assert.deepEqual(message.tool_calls, [
    {
      id: "it7-call0",
      type: "function",
      function: { name: "shell", arguments: '{"command":"ls"}' },
    },
    { id: "b", type: "function", function: { name: "glob", arguments: "not json" } },
  ]);
  assert.deepEqual(deltas, [
    { type: "tool_call", index: 1, name: "glob" },
    { type: "tool_call", index: 0, name: "shell" },
  ]);
});

Deno.test("ChatStreamAssembler separates calls that arrive without an index", () => {
  const assembler = new ChatStreamAssembler({ iteration: 1 });
  assembler.push(chunk({ tool_calls: [{ id: "x", function: { name: "glob", arguments: "{}" } }] }));
  assembler.push(
    chunk({ tool_calls: [{ id: "y", function: { name: "shell", arguments: '{"c":' } }] }),
  );
  assembler.push(chunk({ tool_calls: [{ function: { arguments: "1}" } }] }));
  assembler.push(chunk({}, "tool_calls"));
  const calls = assembler.finish().message.tool_calls ?? [];
  assert.deepEqual(calls.map((c) => [c.id, c.function.name, c.function.arguments]), [
    ["x", "glob", "{}"],
    ["y", "shell", '{"c":1}'],
  ]);
});

Deno.test("ChatStreamAssembler reads choice 0 only, and usage from any chunk", () => {
  const assembler = new ChatStreamAssembler({ iteration: 1 });
  assembler.push(chunk({ content: "mine" }));
  assembler.push(chunk({ content: "other choice" }, null, 1));
  assembler.push(chunk({ content: null, reasoning: "openrouter style" }, "length"));
  assembler.push({ choices: [], usage: { prompt_tokens: 12, completion_tokens: 3 } });
  const res = assembler.finish();
  assert.deepEqual(res.message, {
    role: "assistant",
    content: "mine",
    reasoning_content: "openrouter style",
  });
  assert.equal(res.finishReason, "length");
  assert.deepEqual(res.usage, { inputTokens: 12, outputTokens: 3 });
});

Deno.test("ChatStreamAssembler throws MODEL_PROTOCOL for a bad chunk or a missing finish", async (t) => {
  await t.step("chunk with the wrong shape", () => {
    const assembler = new ChatStreamAssembler({ iteration: 1, source: "the model at X" });
    assert.throws(
      () => assembler.push({ choices: [{ delta: { content: 42 } }] }),
      (err: unknown) =>
        err instanceof OdekError && err.code === "MODEL_PROTOCOL" &&
        err.message.includes('"choices.0.delta.content"') && err.message.includes("the model at X"),
    );
  });
  await t.step("no finish_reason", () => {
    const assembler = new ChatStreamAssembler({ iteration: 1 });
    assembler.push(chunk({ content: "partial" }));
    assert.throws(
      () => assembler.finish(),
      (err: unknown) =>
        err instanceof OdekError && err.code === "MODEL_PROTOCOL" &&
        /after 1 chunks without a finish_reason/.test(err.message),
    );
  });
});

Deno.test("ChatStreamAssembler makes repeated tool-call ids unique within a message", () => {
  const assembler = new ChatStreamAssembler({ iteration: 4 });
  for (const [index, id] of [[0, "dup"], [1, "dup"], [2, "it4-call2"], [3, "it4-call2"]] as const) {
    assembler.push(
      chunk({ tool_calls: [{ index, id, function: { name: "glob", arguments: "{}" } }] }),
    );
  }
  assembler.push(chunk({}, "tool_calls"));
  const ids = assembler.finish().message.tool_calls!.map((c) => c.id);
  assert.deepEqual(ids, ["dup", "it4-call1", "it4-call2", "it4-call3"]);
  assert.equal(new Set(ids).size, ids.length);
});

Deno.test("ChatStreamAssembler counts negative or fractional usage from a hostile provider as whole tokens ≥ 0", () => {
  // Found by the adversarial review: usage {prompt_tokens: -1e15} was taken as is, so a provider
  // (or a proxy) could keep the token and cost budgets from ever tripping.
  const assembler = new ChatStreamAssembler({ iteration: 1 });
  assembler.push(chunk({ content: "hi" }, "stop"));
  assembler.push({ choices: [], usage: { prompt_tokens: -1e15, completion_tokens: 2.6 } });
  assert.deepEqual(assembler.finish().usage, { inputTokens: 0, outputTokens: 3 });
});

/** The calls of a stream of tool-call deltas (one per chunk), finished with `tool_calls`. */
function assemble(deltas: unknown[], iteration = 1) {
  const started: ModelDelta[] = [];
  const assembler = new ChatStreamAssembler({ iteration, onDelta: (d) => started.push(d) });
  for (const delta of deltas) assembler.push(chunk({ tool_calls: [delta] }));
  assembler.push(chunk({}, "tool_calls"));
  const calls = assembler.finish().message.tool_calls ?? [];
  return {
    calls: calls.map((c) => [c.id, c.function.name, c.function.arguments]),
    started,
  };
}

Deno.test("ChatStreamAssembler (issue 14, case 1): a new id on index 0 starts a second call", () => {
  const { calls, started } = assemble([
    { index: 0, id: "c1", function: { name: "read_file", arguments: '{"path":"a.txt"}' } },
    { index: 0, id: "c2", function: { name: "file_info", arguments: '{"path":"b.txt"}' } },
  ]);
  assert.deepEqual(calls, [
    ["c1", "read_file", '{"path":"a.txt"}'],
    ["c2", "file_info", '{"path":"b.txt"}'],
  ]);
  assert.deepEqual(started.map((d) => d.type === "tool_call" && d.name), [
    "read_file",
    "file_info",
  ]);
});

Deno.test("ChatStreamAssembler (issue 14, case 1): a name after complete arguments on the same index starts a second call", async (t) => {
  await t.step("another tool, no ids, arguments streamed in pieces", () => {
    const { calls } = assemble([
      { index: 0, function: { name: "read_file", arguments: "" } },
      { index: 0, function: { arguments: '{"path":' } },
      { index: 0, function: { arguments: '"a.txt"}' } },
      { index: 0, function: { name: "file_info", arguments: "" } },
      { index: 0, function: { arguments: '{"path":"b.txt"}' } },
    ], 3);
    assert.deepEqual(calls, [
      ["it3-call0", "read_file", '{"path":"a.txt"}'],
      ["it3-call1", "file_info", '{"path":"b.txt"}'],
    ]);
  });
  await t.step("the same tool again, its arguments on the naming chunk", () => {
    const { calls } = assemble([
      { index: 0, function: { name: "read_file", arguments: '{"path":"a.txt"}' } },
      { index: 0, function: { name: "read_file", arguments: '{"path":"b.txt"}' } },
    ]);
    assert.deepEqual(calls, [
      ["it1-call0", "read_file", '{"path":"a.txt"}'],
      ["it1-call1", "read_file", '{"path":"b.txt"}'],
    ]);
  });
  await t.step("a later index still sorts after both", () => {
    const { calls } = assemble([
      { index: 0, id: "a", function: { name: "glob", arguments: '{"pattern":"*"}' } },
      { index: 1, id: "z", function: { name: "shell", arguments: '{"command":"ls"}' } },
      { index: 0, id: "b", function: { name: "grep", arguments: '{"pattern":"x"}' } },
    ]);
    assert.deepEqual(calls.map((c) => c[0]), ["a", "b", "z"]);
  });
});

Deno.test("ChatStreamAssembler (issue 14, case 1): a name restated on every chunk of one call is one call", async (t) => {
  await t.step("with the id on every chunk", () => {
    const pieces = ["", '{"pa', 'th":"a', '.txt"}', ""];
    const { calls, started } = assemble(
      pieces.map((p) => ({ index: 0, id: "c1", function: { name: "read_file", arguments: p } })),
    );
    assert.deepEqual(calls, [["c1", "read_file", '{"path":"a.txt"}']]);
    assert.equal(started.length, 1);
  });
  await t.step(
    "without ids, and a trailing name-only chunk after the arguments are complete",
    () => {
      const pieces = ['{"path"', ':"a.txt"', "}", ""];
      const { calls } = assemble(
        pieces.map((p) => ({ index: 0, function: { name: "read_file", arguments: p } })),
      );
      assert.deepEqual(calls, [["it1-call0", "read_file", '{"path":"a.txt"}']]);
    },
  );
  await t.step("without an index either", () => {
    const { calls } = assemble([
      { id: "c1", function: { name: "read_file", arguments: '{"path":' } },
      { id: "c1", function: { name: "read_file", arguments: '"a.txt"}' } },
    ]);
    assert.deepEqual(calls, [["c1", "read_file", '{"path":"a.txt"}']]);
  });
});

Deno.test("ChatStreamAssembler (issue 14, case 3): empty or whitespace-only arguments are {}", () => {
  const { calls } = assemble([
    { index: 0, id: "a", function: { name: "git_status", arguments: "   \n " } },
    { index: 1, id: "b", function: { name: "list_jobs" } },
    { index: 2, id: "c", function: { name: "glob", arguments: ' {"pattern":"*"} ' } },
  ]);
  assert.deepEqual(calls, [
    ["a", "git_status", "{}"],
    ["b", "list_jobs", "{}"],
    ["c", "glob", ' {"pattern":"*"} '],
  ]);
});
