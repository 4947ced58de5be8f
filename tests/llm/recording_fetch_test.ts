import assert from "node:assert/strict";
import { OdekError } from "../../src/_util/odek_error.ts";
import { OpenAIModel } from "../../src/llm/openai_model.ts";
import { recordingFetch } from "../../src/llm/recording_fetch.ts";
import { replayFetch } from "../../src/llm/replay_fetch.ts";
import { startFakeOpenAIServer } from "../../src/testing/fake_openai_server.ts";

const KEY = "sk-cassette-key-42";
const TASK = { role: "user" as const, content: "list the ts files" };

async function withTempDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "odek_cassette_" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("recordingFetch() redacts secrets in request bodies and chunks", async () => {
  await withTempDir(async (dir) => {
    const file = `${dir}/run.json`;
    const secret = "ghp_SECRETTOKEN1234567890";
    // A short word arrives as one text chunk, so the chunk-level redaction can see it.
    await using server = await startFakeOpenAIServer({ turns: [{ text: "pw1234" }] });
    const redact = (t: string) => t.replaceAll(secret, "[REDACTED]").replaceAll("pw1234", "[PW]");
    const record = recordingFetch(file, { redact });
    const model = new OpenAIModel({ baseURL: server.url, apiKey: KEY, model: "m", fetch: record });
    const res = await model.complete({
      messages: [{ role: "user", content: `my token is ${secret}` }],
      tools: [],
      iteration: 1,
    });
    assert.equal(res.message.content, "pw1234", "the caller still sees the real stream");
    assert.equal(server.requests[0].body.messages[0].content, `my token is ${secret}`);
    const text = await Deno.readTextFile(file);
    assert.ok(!text.includes(secret));
    assert.ok(!text.includes("pw1234"));
    const cassette = JSON.parse(text);
    assert.equal(cassette.turns[0].request.messages[0].content, "my token is [REDACTED]");
    const contents = cassette.turns[0].response.chunks
      .map((c: { choices: { delta?: { content?: string } }[] }) => c.choices[0]?.delta?.content);
    assert.ok(contents.includes("[PW]"));
  });
});

Deno.test("recordingFetch() redacts a secret the model spread over many chunks, and the cassette still replays", async () => {
  await withTempDir(async (dir) => {
    const file = `${dir}/run.json`;
    const secret = "sk-canary-0123456789abcdefghijklmnop";
    const { redactKnownValues } = await import("../../src/_util/redact_known_values.ts");
    await using server = await startFakeOpenAIServer({
      turns: [{
        text: `Here it is: ${secret} (done)`,
        toolCalls: [{ id: "c1", name: "shell", arguments: { command: `echo ${secret}` } }],
      }],
    });
    const record = recordingFetch(file, { redact: redactKnownValues([secret]) });
    const live = await new OpenAIModel({
      baseURL: server.url,
      apiKey: KEY,
      model: "m",
      fetch: record,
    })
      .complete({ messages: [TASK], tools: [], iteration: 1 });
    assert.equal(
      live.message.content,
      `Here it is: ${secret} (done)`,
      "the caller sees the real stream",
    );
    const text = await Deno.readTextFile(file);
    const chunks = JSON.parse(text).turns[0].response.chunks;
    assert.ok(chunks.length > 10, "the secret really was split over many chunks");
    for (const fragment of [secret.slice(0, 10), secret.slice(10, 20), secret.slice(-10)]) {
      assert.ok(!text.includes(fragment), `the cassette holds ${fragment}`);
    }
    const replayed = await new OpenAIModel({
      baseURL: server.url,
      apiKey: KEY,
      model: "m",
      fetch: await replayFetch(file),
    })
      .complete({ messages: [TASK], tools: [], iteration: 1 });
    assert.equal(replayed.message.content, "Here it is: [REDACTED] (done)");
    assert.equal(
      replayed.message.tool_calls?.[0].function.arguments,
      JSON.stringify({ command: "echo [REDACTED]" }),
    );
  });
});

Deno.test("recordingFetch() records an error status and replayFetch() returns it", async () => {
  await withTempDir(async (dir) => {
    const file = `${dir}/run.json`;
    const body = JSON.stringify({ error: { message: "rate limited, slow down" } });
    let live: unknown;
    {
      await using server = await startFakeOpenAIServer({
        turns: [{ fault: { type: "status", status: 429, body } }],
      });
      const model = new OpenAIModel({
        baseURL: server.url,
        apiKey: KEY,
        model: "m",
        fetch: recordingFetch(file, { redact: (t) => t }),
        retry: { maxAttempts: 1 },
      });
      live = await model.complete({ messages: [TASK], tools: [], iteration: 1 }).catch((e) => e);
    }
    const cassette = JSON.parse(await Deno.readTextFile(file));
    assert.deepEqual(cassette.turns[0].response, { status: 429, body });
    const model = new OpenAIModel({
      baseURL: "http://127.0.0.1:9/v1",
      apiKey: KEY,
      model: "m",
      fetch: await replayFetch(file),
      retry: { maxAttempts: 1 },
    });
    const replayed = await model.complete({ messages: [TASK], tools: [], iteration: 1 }).catch((
      e,
    ) => e);
    assert.ok(replayed instanceof OdekError && live instanceof OdekError);
    assert.equal(replayed.code, "MODEL_ERROR");
    assert.match(replayed.message, /HTTP 429: rate limited, slow down/);
  });
});

Deno.test("recordingFetch() passes other requests through unrecorded", async () => {
  await withTempDir(async (dir) => {
    const file = `${dir}/run.json`;
    await using server = await startFakeOpenAIServer({ turns: [{ text: "hi" }] });
    const record = recordingFetch(file, { redact: (t) => t });
    const models = await (await record(`${server.url}/models`)).json();
    assert.equal(models.data[0].id, "fake-model");
    await assert.rejects(Deno.stat(file), Deno.errors.NotFound);
    const model = new OpenAIModel({ baseURL: server.url, apiKey: KEY, model: "m", fetch: record });
    await model.complete({ messages: [TASK], tools: [], iteration: 1 });
    const entries = [];
    for await (const entry of Deno.readDir(dir)) entries.push(entry.name);
    assert.deepEqual(entries, ["run.json"], "no temporary file is left behind");
  });
});

Deno.test("recordingFetch() fails the turn with CASSETTE_INVALID when it cannot write", async () => {
  await withTempDir(async (dir) => {
    await using server = await startFakeOpenAIServer({ turns: [{ text: "hi" }] });
    const file = `${dir}/missing/run.json`;
    const record = recordingFetch(file, { redact: (t) => t });
    const model = new OpenAIModel({ baseURL: server.url, apiKey: KEY, model: "m", fetch: record });
    const err = await model.complete({ messages: [TASK], tools: [], iteration: 1 }).catch((e) => e);
    assert.ok(err instanceof OdekError, String(err));
    assert.equal(err.code, "CASSETTE_INVALID");
    assert.match(err.message, /Cannot write the cassette .*missing\/run\.json/);
  });
});
