import assert from "node:assert/strict";
import { startFakeOpenAIServer } from "../../src/testing/fake_openai_server.ts";
import { startResetProxy } from "../../src/testing/reset_proxy.ts";

function chat(url: string, signal?: AbortSignal): Promise<Response> {
  return fetch(`${url}/chat/completions`, {
    method: "POST",
    body: JSON.stringify({ model: "m", stream: true, messages: [{ role: "user", content: "hi" }] }),
    signal,
  });
}

Deno.test("fake server: a status fault sends its headers and body", async () => {
  const body = JSON.stringify({ error: { message: "quota", code: "insufficient_quota" } });
  await using server = await startFakeOpenAIServer({
    turns: [{
      fault: {
        type: "status",
        status: 429,
        retryAfter: "Mon, 30 Nov 2026 12:01:30 GMT",
        body,
        headers: { "x-ratelimit-remaining-tokens": "0", "x-ratelimit-reset-tokens": "3h0m0s" },
      },
    }],
  });
  const res = await chat(server.url);
  assert.equal(res.status, 429);
  assert.equal(res.headers.get("retry-after"), "Mon, 30 Nov 2026 12:01:30 GMT");
  assert.equal(res.headers.get("x-ratelimit-reset-tokens"), "3h0m0s");
  assert.equal(await res.text(), body);
});

Deno.test("fake server: a reset fault sends the first chunks, then drops the connection", async () => {
  await using server = await startFakeOpenAIServer({
    turns: [{ text: "one two three four five", fault: { type: "reset", afterChunks: 2 } }],
  });
  const res = await chat(server.url);
  assert.equal(res.status, 200);
  const reader = res.body!.getReader();
  let text = "";
  const error = await (async () => {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return undefined;
        text += new TextDecoder().decode(value);
      }
    } catch (err) {
      return err;
    }
  })();
  assert.ok(error instanceof TypeError, `the body read fails, got ${error}`);
  assert.equal(text.split("data: ").length - 1, 2, text);
  assert.ok(!text.includes("[DONE]"));
});

Deno.test("fake server: a stall fault sends the first chunks and then nothing until aborted", async () => {
  await using server = await startFakeOpenAIServer({
    turns: [{ text: "one two three", fault: { type: "stall", afterChunks: 2 } }],
  });
  const controller = new AbortController();
  const res = await chat(server.url, controller.signal);
  const reader = res.body!.getReader();
  let text = "";
  while (text.split("data: ").length - 1 < 2) {
    text += new TextDecoder().decode((await reader.read()).value);
  }
  const next = reader.read();
  controller.abort();
  await assert.rejects(next);
  assert.equal(text.split("data: ").length - 1, 2);
});

Deno.test("reset proxy: drops the first N connections before any response, then passes through", async () => {
  await using server = await startFakeOpenAIServer({ turns: [{ text: "hello" }] });
  await using proxy = await startResetProxy({ target: server.url, resets: 2 });
  await assert.rejects(chat(proxy.url), TypeError);
  await assert.rejects(chat(proxy.url), TypeError);
  const res = await chat(proxy.url);
  assert.equal(res.status, 200);
  assert.match(await res.text(), /"content":"hello"[\s\S]*\[DONE\]/);
  assert.equal(proxy.resetCount, 2);
  assert.equal(server.requests.length, 1, "dropped requests never reached the server");
});
