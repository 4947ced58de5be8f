import assert from "node:assert/strict";
import type { ChatMessage } from "../../src/_util/chat_message.ts";
import { OdekError } from "../../src/_util/odek_error.ts";
import type { ModelDelta } from "../../src/llm/model.ts";
import { OpenAIModel } from "../../src/llm/openai_model.ts";
import { recordingFetch } from "../../src/llm/recording_fetch.ts";
import { replayFetch } from "../../src/llm/replay_fetch.ts";
import { startFakeOpenAIServer } from "../../src/testing/fake_openai_server.ts";

const KEY = "sk-cassette-key-42";
const TASK: ChatMessage = { role: "user", content: "list the ts files" };

/** Runs a two-turn exchange (tool call, then answer) against `fetch`, returning the transcript. */
async function twoTurnRun(baseURL: string, fetchImpl: typeof fetch, toolCallId?: string) {
  const model = new OpenAIModel({ baseURL, apiKey: KEY, model: "m", fetch: fetchImpl });
  const deltas: ModelDelta[] = [];
  const first = await model.complete(
    { messages: [TASK], tools: [], iteration: 1 },
    (d) => deltas.push(d),
  );
  const call = first.message.tool_calls![0];
  const messages: ChatMessage[] = [
    TASK,
    first.message,
    { role: "tool", tool_call_id: toolCallId ?? call.id, content: "a.ts\nb.ts" },
  ];
  const second = await model.complete({ messages, tools: [], iteration: 2 }, (d) => deltas.push(d));
  return { first, second, deltas, model };
}

const SCRIPT = [
  {
    reasoning: "Use glob.",
    toolCalls: [{ id: "call_1", name: "glob", arguments: { pattern: "*.ts" } }],
  },
  {
    text: "There are two files: a.ts and b.ts.",
    usage: { prompt_tokens: 30, completion_tokens: 9 },
  },
];

async function withTempDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "odek_cassette_" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** A fetch that records the bodies it is given before delegating. */
function capturing(inner: typeof fetch, bodies: unknown[]): typeof fetch {
  return async (input, init) => {
    const req = new Request(input, init);
    bodies.push(JSON.parse(await req.clone().text()));
    return inner(req);
  };
}

Deno.test("replayFetch() replays a recorded two-turn run with no server", async () => {
  await withTempDir(async (dir) => {
    const file = `${dir}/run.json`;
    const live: unknown[] = [];
    let recorded;
    {
      await using server = await startFakeOpenAIServer({ turns: SCRIPT });
      const record = recordingFetch(file, { redact: (t) => t });
      recorded = await twoTurnRun(server.url, capturing(record, live));
      assert.equal(server.requests.length, 2);
    }
    const info = await Deno.stat(file);
    assert.equal(info.mode! & 0o777, 0o600);

    const replayed: unknown[] = [];
    const replay = await replayFetch(file);
    const again = await twoTurnRun("http://127.0.0.1:9/v1", capturing(replay, replayed));
    assert.deepEqual(replayed, live, "the replayed run sends the same requests");
    assert.deepEqual(again.first, recorded.first);
    assert.deepEqual(again.second, recorded.second);
    assert.deepEqual(again.deltas, recorded.deltas);
    assert.equal(again.second.message.content, "There are two files: a.ts and b.ts.");
    assert.deepEqual(again.second.usage, { inputTokens: 30, outputTokens: 9 });

    const cassette = JSON.parse(await Deno.readTextFile(file));
    assert.equal(cassette.schema, "odek.cassette/v1");
    assert.equal(cassette.turns.length, 2);
    assert.deepEqual(cassette.turns.map((t: { request: unknown }) => t.request), live);
    assert.equal(cassette.turns[0].response.done, true);
    assert.ok(!JSON.stringify(cassette).includes(KEY), "the Authorization header is never written");
  });
});

Deno.test("replayFetch() rejects a run whose tool-call ids diverge with CASSETTE_MISMATCH", async () => {
  await withTempDir(async (dir) => {
    const file = `${dir}/run.json`;
    {
      await using server = await startFakeOpenAIServer({ turns: SCRIPT });
      await twoTurnRun(server.url, recordingFetch(file, { redact: (t) => t }));
    }
    const err = await twoTurnRun("http://127.0.0.1:9/v1", await replayFetch(file), "call_other")
      .then(() => assert.fail("expected a mismatch"), (e) => e);
    assert.ok(err instanceof OdekError, String(err));
    assert.equal(err.code, "CASSETTE_MISMATCH");
    assert.match(err.message, /Model turn 2/);
    assert.match(err.message, /\[call_other\]/);
    assert.match(err.message, /\[call_1\]/);
  });
});

Deno.test("replayFetch() rejects a turn past the end of the cassette with CASSETTE_MISMATCH", async () => {
  await withTempDir(async (dir) => {
    const file = `${dir}/run.json`;
    {
      await using server = await startFakeOpenAIServer({ turns: SCRIPT });
      await twoTurnRun(server.url, recordingFetch(file, { redact: (t) => t }));
    }
    const { model } = await twoTurnRun("http://127.0.0.1:9/v1", await replayFetch(file));
    const err = await model.complete({ messages: [TASK], tools: [], iteration: 3 })
      .then(() => assert.fail("expected a mismatch"), (e) => e);
    assert.ok(err instanceof OdekError);
    assert.equal(err.code, "CASSETTE_MISMATCH");
    assert.equal(
      err.message,
      `The run asked for model turn 3 but the cassette ${file} has 2 turns: re-record it with --record.`,
    );
  });
});

Deno.test("replayFetch() rejects invalid cassette files with CASSETTE_INVALID", async (t) => {
  await withTempDir(async (dir) => {
    const chunk = { choices: [] };
    const cases: [string, string | null, RegExp][] = [
      ["a missing file", null, /Cannot read the cassette/],
      ["text that is not JSON", "{ turns: ", /is not valid JSON/],
      [
        "a wrong schema tag",
        JSON.stringify({ schema: "odek.cassette/v0", turns: [] }),
        /at schema, .*odek\.cassette\/v1/,
      ],
      [
        "chunks that are not a list",
        JSON.stringify({
          schema: "odek.cassette/v1",
          turns: [{ request: {}, response: { status: 200, chunks: 3, done: true } }],
        }),
        /at turns\[0\]\.response\.chunks, .*expected array/,
      ],
      [
        "a stream without done",
        JSON.stringify({
          schema: "odek.cassette/v1",
          turns: [{ request: {}, response: { status: 200, chunks: [chunk] } }],
        }),
        /at turns\[0\]\.response\.done, /,
      ],
    ];
    for (const [name, content, pattern] of cases) {
      await t.step(name, async () => {
        const file = `${dir}/${name.replaceAll(" ", "_")}.json`;
        if (content !== null) await Deno.writeTextFile(file, content);
        const err = await replayFetch(file).then(
          () => assert.fail("expected a rejection"),
          (e) => e,
        );
        assert.ok(err instanceof OdekError);
        assert.equal(err.code, "CASSETTE_INVALID");
        assert.ok(err.message.includes(file), "names the file");
        assert.match(err.message, pattern);
      });
    }
  });
});

Deno.test("A recorded retry replays as a retry, and a replay never retries past the cassette", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const file = `${dir}/retry.json`;
    const task: ChatMessage[] = [{ role: "user", content: "hi" }];
    {
      await using server = await startFakeOpenAIServer({
        turns: [{ fault: { type: "status", status: 503 } }, { text: "after the retry" }],
      });
      const model = new OpenAIModel({
        baseURL: server.url,
        apiKey: "sk-test",
        model: "m",
        fetch: recordingFetch(file, { redact: (t) => t }),
        retry: { baseMs: 1 },
      });
      await model.complete({ messages: task, tools: [], iteration: 1 });
    }
    const cassette = JSON.parse(await Deno.readTextFile(file));
    assert.deepEqual(
      cassette.turns.map((t: { response: { status: number } }) => t.response.status),
      [
        503,
        200,
      ],
    );
    const replay = new OpenAIModel({
      baseURL: "http://127.0.0.1:9/v1",
      apiKey: "sk-test",
      model: "m",
      fetch: await replayFetch(file),
      retry: { baseMs: 1 },
    });
    const res = await replay.complete({ messages: task, tools: [], iteration: 1 });
    assert.equal(res.message.content, "after the retry");
    // A third request asks for a turn the cassette does not have: thrown at once, not retried.
    let fetches = 0;
    const inner = await replayFetch(file);
    const counting: typeof fetch = (input, init) => {
      fetches++;
      return inner(input, init);
    };
    const short = new OpenAIModel({
      baseURL: "http://127.0.0.1:9/v1",
      apiKey: "sk-test",
      model: "m",
      fetch: counting,
      retry: { baseMs: 1 },
    });
    await short.complete({ messages: task, tools: [], iteration: 1 });
    const err = await short.complete({ messages: task, tools: [], iteration: 2 }).catch((e) => e);
    assert.ok(err instanceof OdekError);
    assert.equal(err.code, "CASSETTE_MISMATCH");
    assert.equal(fetches, 3);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
