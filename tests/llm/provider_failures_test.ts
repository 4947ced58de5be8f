/**
 * Issue 14's model-client cases, each with its smallest input, against the fake server in strict
 * mode (HTTP 400 for unpaired calls and results, repeated ids, non-JSON history arguments).
 */
import assert from "node:assert/strict";
import type { ChatMessage } from "../../src/_util/chat_message.ts";
import { OdekError } from "../../src/_util/odek_error.ts";
import type { ModelRequest } from "../../src/llm/model.ts";
import { OpenAIModel, type OpenAIModelOptions } from "../../src/llm/openai_model.ts";
import { FakeClock } from "../../src/testing/fake_clock.ts";
import {
  type FakeOpenAIServer,
  type ScriptedTurn,
  startFakeOpenAIServer,
} from "../../src/testing/fake_openai_server.ts";

const KEY = "sk-test-0123456789abcdef";

function modelFor(baseURL: string, options: Partial<OpenAIModelOptions> = {}) {
  const clock = new FakeClock();
  const model = new OpenAIModel({ baseURL, apiKey: KEY, model: "m", clock, ...options });
  return { model, clock };
}

function request(messages: ChatMessage[], iteration = 1): ModelRequest {
  return { messages, tools: [], iteration };
}

async function rejection(promise: Promise<unknown>): Promise<OdekError> {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof OdekError, `not an OdekError: ${err}`);
    return err;
  }
  assert.fail("expected a rejection");
}

const USER: ChatMessage = { role: "user", content: "look at a.txt and b.txt" };

/** Runs turn 1, answers each call with a result, and sends turn 2 to the strict server. */
async function roundTrip(server: FakeOpenAIServer, model: OpenAIModel) {
  const first = await model.complete(request([USER]));
  const calls = first.message.tool_calls ?? [];
  const results: ChatMessage[] = calls.map((call) => ({
    role: "tool",
    tool_call_id: call.id,
    content: `result of ${call.function.name}`,
  }));
  const second = await model.complete(request([USER, first.message, ...results], 2));
  return { first, second, sent: server.requests[1] };
}

Deno.test("case 1: two calls streamed on index 0 come out as two calls, and the next request is valid", async () => {
  const turns: ScriptedTurn[] = [
    {
      deltas: [
        {
          tool_calls: [{
            index: 0,
            id: "c1",
            type: "function",
            function: { name: "read_file", arguments: '{"path":"a.txt"}' },
          }],
        },
        {
          tool_calls: [{
            index: 0,
            id: "c2",
            type: "function",
            function: { name: "file_info", arguments: '{"path":"b.txt"}' },
          }],
        },
      ],
      finishReason: "tool_calls",
    },
    { text: "done" },
  ];
  await using server = await startFakeOpenAIServer({ turns, strict: true });
  const { first, second, sent } = await roundTrip(server, modelFor(server.url).model);
  assert.deepEqual(
    first.message.tool_calls?.map((c) => [c.id, c.function.name, c.function.arguments]),
    [["c1", "read_file", '{"path":"a.txt"}'], ["c2", "file_info", '{"path":"b.txt"}']],
  );
  assert.equal(second.message.content, "done");
  assert.equal(sent.refused, undefined, sent.refusal);
});

Deno.test("case 3: whitespace arguments mean {} and every history arguments sent is a JSON object", async (t) => {
  await t.step("streamed whitespace", async () => {
    const turns: ScriptedTurn[] = [
      { toolCalls: [{ id: "z1", name: "list_jobs", arguments: "   \n " }] },
      { text: "none running" },
    ];
    await using server = await startFakeOpenAIServer({ turns, strict: true });
    const { first, second, sent } = await roundTrip(server, modelFor(server.url).model);
    assert.equal(first.message.tool_calls?.[0].function.arguments, "{}");
    assert.equal(second.message.content, "none running");
    assert.equal(sent.refused, undefined, sent.refusal);
  });
  await t.step(
    "a journal from before the fix: whitespace, broken and non-object arguments",
    async () => {
      await using server = await startFakeOpenAIServer({ turns: [{ text: "ok" }], strict: true });
      const { model } = modelFor(server.url);
      const call = (id: string, args: string) => ({
        id,
        type: "function" as const,
        function: { name: "glob", arguments: args },
      });
      const history: ChatMessage[] = [
        USER,
        {
          role: "assistant",
          content: null,
          tool_calls: [
            call("a", "   \n "),
            call("b", '{"pattern":"*.ts"'),
            call("c", '{"path":"a.txt"}{"path":"b.txt"}'),
            call("d", "[1,2]"),
            call("e", '{"pattern":"ok"}'),
          ],
        },
        ...["a", "b", "c", "d", "e"].map((id): ChatMessage => ({
          role: "tool",
          tool_call_id: id,
          content: "x",
        })),
      ];
      const before = structuredClone(history);
      const res = await model.complete(request(history, 2));
      assert.equal(res.message.content, "ok");
      assert.equal(server.requests[0].refused, undefined, server.requests[0].refusal);
      const sentCalls = server.requests[0].body.messages[1].tool_calls;
      assert.deepEqual(
        sentCalls.map((c: { function: { arguments: string } }) => c.function.arguments),
        ["{}", "{}", "{}", "{}", '{"pattern":"ok"}'],
      );
      assert.deepEqual(history, before, "the transcript itself is not changed");
    },
  );
});

Deno.test("case 3: the strict fake refuses what odek used to send, so the test above can fail", async () => {
  await using server = await startFakeOpenAIServer({ turns: [{ text: "never" }], strict: true });
  const res = await fetch(`${server.url}/chat/completions`, {
    method: "POST",
    body: JSON.stringify({
      model: "m",
      messages: [
        USER,
        {
          role: "assistant",
          content: null,
          tool_calls: [{
            id: "a",
            type: "function",
            function: { name: "list_jobs", arguments: "   \n " },
          }],
        },
        { role: "tool", tool_call_id: "a", content: "x" },
      ],
    }),
  });
  assert.equal(res.status, 400);
  assert.match((await res.json()).error.message, /arguments must be a JSON object/);
});

Deno.test("case 4: a quota described only in the body fails at once, quoting it, with the reset time", async () => {
  const body = JSON.stringify({
    error: { message: "You exceeded your daily quota. Your quota will reset in 12 hours." },
  });
  await using server = await startFakeOpenAIServer({
    turns: [{ fault: { type: "status", status: 429, body } }],
  });
  const { model, clock } = modelFor(server.url);
  const err = await rejection(model.complete(request([USER])));
  assert.equal(err.code, "MODEL_ERROR");
  assert.match(
    err.message,
    /HTTP 429: You exceeded your daily quota\. Your quota will reset in 12 hours/,
  );
  assert.match(err.message, /quota or balance is used up until it resets in 12 h 0 min/);
  assert.match(err.message, /retry after 2026-01-01T12:00:00Z/);
  assert.equal(server.requests.length, 1, "not retried");
  assert.deepEqual(clock.sleeps, []);
});

Deno.test("case 4: quota and billing errors fail fast whatever their wording and status", async (t) => {
  const cases: [string, number, Record<string, unknown>][] = [
    ["OpenAI insufficient_quota", 429, {
      message: "You exceeded your current quota, please check your plan and billing details.",
      type: "insufficient_quota",
      code: "insufficient_quota",
    }],
    ["a code only", 429, { message: "Request failed.", code: "quota_exceeded" }],
    ["a billing limit", 400, {
      message: "Billing hard limit has been reached",
      code: "billing_hard_limit_reached",
    }],
    ["DeepSeek 402", 402, { message: "Insufficient Balance", type: "unknown_error" }],
    ["OpenRouter 402", 402, { message: "Insufficient credits. Add more using the dashboard." }],
    ["Anthropic credit balance", 400, {
      message: "Your credit balance is too low to access the Anthropic API.",
      type: "invalid_request_error",
    }],
    ["Gemini daily quota", 429, {
      message: "Quota exceeded for metric: generate_content_free_tier_requests, limit: 250",
      status: "RESOURCE_EXHAUSTED",
    }],
  ];
  for (const [name, status, error] of cases) {
    await t.step(name, async () => {
      await using server = await startFakeOpenAIServer({
        turns: [{ fault: { type: "status", status, body: JSON.stringify({ error }) } }],
      });
      const { model } = modelFor(server.url);
      const err = await rejection(model.complete(request([USER])));
      assert.match(err.message, new RegExp(`HTTP ${status}: `));
      assert.match(err.message, /quota or balance is used up.*plan and billing/);
      assert.equal(server.requests.length, 1);
    });
  }
});

Deno.test("case 4: a per-minute quota that names a short wait, and a bare mention of quota, are retried", async (t) => {
  const cases: [string, Record<string, unknown>, number][] = [
    ["Gemini per-minute", {
      message: "You exceeded your current quota, please check your plan and billing details. " +
        "Please retry in 2.5s.",
    }, 2500],
    ["Vertex resource exhausted", {
      message: "Resource has been exhausted (e.g. check quota).",
      status: "RESOURCE_EXHAUSTED",
    }, 10],
  ];
  for (const [name, error, wait] of cases) {
    await t.step(name, async () => {
      await using server = await startFakeOpenAIServer({
        turns: [
          { fault: { type: "status", status: 429, body: JSON.stringify({ error }) } },
          { text: "after the wait" },
        ],
      });
      const { model, clock } = modelFor(server.url, { retry: { baseMs: 10 } });
      const res = await model.complete(request([USER]));
      assert.equal(res.message.content, "after the wait");
      assert.equal(clock.sleeps.length, 1);
      // The backoff has ±25 % jitter; a named wait is used verbatim.
      assert.ok(Math.abs(clock.sleeps[0] - wait) <= wait / 4, `waited ${clock.sleeps[0]}`);
    });
  }
});

const PAGE = "<!DOCTYPE html>\n<html><head><title>Acme Dashboard</title>" +
  "<script>var config = {};</script></head><body><div id=root></div></body></html>";

/** A website on 127.0.0.1 that answers every path with `PAGE` (what a wrong base URL meets). */
async function startWebsite() {
  const { promise, resolve } = Promise.withResolvers<Deno.NetAddr>();
  let hits = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: resolve }, async (req) => {
    hits++;
    await req.body?.cancel();
    return new Response(PAGE, { headers: { "content-type": "text/html; charset=utf-8" } });
  });
  const { port } = await promise;
  return {
    url: `http://127.0.0.1:${port}`,
    hits: () => hits,
    [Symbol.asyncDispose]: () => server.shutdown(),
  };
}

Deno.test("case 9: a 200 web page fails at once, saying what came back and what to check", async () => {
  await using site = await startWebsite();
  const { model, clock } = modelFor(site.url);
  const err = await rejection(model.complete(request([USER])));
  assert.equal(err.code, "MODEL_PROTOCOL");
  assert.match(
    err.message,
    /answered HTTP 200 with a web page titled "Acme Dashboard" \(text\/html\)/,
  );
  assert.match(err.message, /try --base-url http:\/\/127\.0\.0\.1:\d+\/v1/);
  assert.ok(!err.message.includes("<"), "no markup in the message");
  assert.equal(site.hits(), 1, "not retried");
  assert.deepEqual(clock.sleeps, []);
});

Deno.test("case 9: a 200 web page under /v1 is reported as a web page too", async () => {
  await using server = await startFakeOpenAIServer({
    turns: [{
      fault: { type: "status", status: 200, body: PAGE, headers: { "content-type": "text/html" } },
    }],
  });
  const err = await rejection(modelFor(server.url).model.complete(request([USER])));
  assert.match(err.message, /a web page titled "Acme Dashboard".*documented API root/);
  assert.equal(server.requests.length, 1);
});

Deno.test("case 9: other 200s that are not event streams fail at once too", async (t) => {
  const cases: [string, string, string, RegExp][] = [
    [
      "plain text",
      "text/plain",
      "{not json",
      /HTTP 200 with data that is not an event stream \(text\/plain\): "\{not json"/,
    ],
    [
      "a JSON error",
      "application/json",
      '{"error":{"message":"model not found"}}',
      /HTTP 200 with an error instead of a stream: model not found/,
    ],
    [
      "a whole completion",
      "application/json",
      '{"object":"chat.completion","choices":[]}',
      /whole JSON reply instead of an event stream.*ignores "stream": true/,
    ],
  ];
  for (const [name, type, body, message] of cases) {
    await t.step(name, async () => {
      await using server = await startFakeOpenAIServer({
        turns: [{
          fault: { type: "status", status: 200, body, headers: { "content-type": type } },
        }],
      });
      const { model } = modelFor(server.url);
      const err = await rejection(model.complete(request([USER])));
      assert.match(err.message, message);
      assert.equal(server.requests.length, 1);
    });
  }
});

Deno.test("case 9: a stream sent without the event-stream content type still works", async () => {
  const frames = [
    { choices: [{ index: 0, delta: { content: "fine" }, finish_reason: null }] },
    { choices: [{ index: 0, delta: {}, finish_reason: "stop" }] },
  ].map((c) => `data: ${JSON.stringify(c)}\n\n`).join("") + "data: [DONE]\n\n";
  await using server = await startFakeOpenAIServer({
    turns: [{
      fault: {
        type: "status",
        status: 200,
        body: frames,
        headers: { "content-type": "text/plain" },
      },
    }],
  });
  const res = await modelFor(server.url).model.complete(request([USER]));
  assert.equal(res.message.content, "fine");
});

Deno.test("case 9: a 404 on the chat route suggests the missing /v1, and never dumps markup", async (t) => {
  await t.step("the fake's own 404 for a base URL without /v1", async () => {
    await using server = await startFakeOpenAIServer({ turns: [] });
    const base = server.url.replace(/\/v1$/, "");
    const err = await rejection(modelFor(base).model.complete(request([USER])));
    assert.equal(err.code, "MODEL_ERROR");
    assert.match(
      err.message,
      /answered HTTP 404: fake server: no route for POST \/chat\/completions/,
    );
    assert.match(err.message, /Nothing serves POST http:\/\/127\.0\.0\.1:\d+\/chat\/completions/);
    assert.match(err.message, /try --base-url http:\/\/127\.0\.0\.1:\d+\/v1\.$/);
  });
  await t.step("an HTML 404 page", async () => {
    const page = `<html><head><title>404 Not Found</title></head><body>${"x".repeat(5000)}</body>`;
    await using server = await startFakeOpenAIServer({
      turns: [{
        fault: {
          type: "status",
          status: 404,
          body: page,
          headers: { "content-type": "text/html" },
        },
      }],
    });
    const err = await rejection(modelFor(server.url).model.complete(request([USER])));
    assert.match(err.message, /HTTP 404: a web page titled "404 Not Found"\. Nothing serves POST/);
    assert.match(
      err.message,
      /check --base-url \/ baseUrl against the provider's documented API root/,
    );
    assert.ok(!err.message.includes("<"), err.message);
    assert.ok(err.message.length < 400, `${err.message.length} characters`);
  });
  await t.step("a 404 about the model names the model, not the path", async () => {
    const body = JSON.stringify({
      error: { message: "The model `gpt-9` does not exist or you do not have access to it." },
    });
    await using server = await startFakeOpenAIServer({
      turns: [{ fault: { type: "status", status: 404, body } }],
    });
    const err = await rejection(modelFor(server.url).model.complete(request([USER])));
    assert.match(err.message, /does not exist.*Check the model id \(--model \/ model\)/);
  });
});

Deno.test("case 9: a JSON error sent with a 200 that reads as transient (overloaded, try again) is retried", async () => {
  const overloaded = '{"error":{"message":"Upstream overloaded, please try again"}}';
  await using server = await startFakeOpenAIServer({
    turns: [
      {
        fault: {
          type: "status",
          status: 200,
          body: overloaded,
          headers: { "content-type": "application/json" },
        },
      },
      { text: "second try" },
    ],
  });
  const { model, clock } = modelFor(server.url, { retry: { baseMs: 10 } });
  const res = await model.complete(request([USER]));
  assert.equal(res.message.content, "second try");
  assert.equal(clock.sleeps.length, 1);
});
