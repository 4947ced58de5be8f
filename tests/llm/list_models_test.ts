import assert from "node:assert/strict";
import { OdekError } from "../../src/_util/odek_error.ts";
import { listModels } from "../../src/llm/list_models.ts";
import { startFakeOpenAIServer } from "../../src/testing/fake_openai_server.ts";

const KEY = "sk-test-0123456789abcdef";

async function failure(promise: Promise<unknown>): Promise<OdekError> {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof OdekError, `not an OdekError: ${err}`);
    return err;
  }
  assert.fail("expected a rejection");
}

/** A 127.0.0.1 server answering every request with `respond()`. */
async function startServer(respond: (req: Request) => Response) {
  const { promise, resolve } = Promise.withResolvers<Deno.NetAddr>();
  const seen: Request[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: resolve }, (req) => {
    seen.push(req);
    return respond(req);
  });
  const { port } = await promise;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    seen,
    [Symbol.asyncDispose]: () => server.shutdown(),
  };
}

Deno.test("listModels() lists the fake server's GET /models, sorted, with reported windows", async () => {
  await using server = await startFakeOpenAIServer({
    turns: [],
    models: ["zeta", { id: "alpha", context_length: 32_768, owned_by: "lab" }, {
      id: "mid",
      max_model_len: "not a number",
    }],
  });
  const headers: Headers[] = [];
  const models = await listModels(server.url, {
    apiKey: KEY,
    fetch: (input, init) => {
      headers.push(new Headers(init?.headers));
      return fetch(input, init);
    },
  });
  assert.deepEqual(models, [
    { id: "alpha", ownedBy: "lab", created: 0, contextWindow: 32_768 },
    { id: "mid", ownedBy: "odek-fake", created: 0 },
    { id: "zeta", ownedBy: "odek-fake", created: 0 },
  ]);
  assert.equal(headers[0].get("authorization"), `Bearer ${KEY}`);
  const keyless = await listModels(`${server.url}/`, {
    fetch: (input, init) => {
      headers.push(new Headers(init?.headers));
      return fetch(input, init);
    },
  });
  assert.equal(keyless.length, 3, "a trailing slash is fine");
  assert.equal(headers[1].get("authorization"), null, "no key, no header");
});

Deno.test("listModels() against a 404 says the server lists no models there and suggests /v1", async () => {
  await using server = await startFakeOpenAIServer({ turns: [] });
  const base = server.url.replace(/\/v1$/, "");
  const err = await failure(listModels(base, { apiKey: KEY }));
  assert.equal(err.code, "MODEL_ERROR");
  assert.match(err.message, /^GET http:\/\/127\.0\.0\.1:\d+\/models answered HTTP 404: /);
  assert.match(err.message, /fake server: no route for GET \/models/);
  assert.match(
    err.message,
    /may not offer GET \/models, or most servers serve the API under \/v1, so try --base-url http:\/\/127\.0\.0\.1:\d+\/v1\.$/,
  );
});

Deno.test("listModels() reports a refused key, a web page, a wrong shape and an oversized body clearly", async (t) => {
  await t.step("401 that echoes the key", async () => {
    await using server = await startServer(() =>
      Response.json({ error: { message: `Incorrect API key provided: ${KEY}` } }, { status: 401 })
    );
    const err = await failure(listModels(server.url, { apiKey: KEY }));
    assert.equal(err.code, "MODEL_ERROR");
    assert.match(
      err.message,
      /HTTP 401: "Incorrect API key provided: \[redacted\]"\. The key was refused/,
    );
    assert.ok(!err.message.includes(KEY));
  });
  await t.step("a web page", async () => {
    await using server = await startServer(() =>
      new Response("<!doctype html><html><head><title>Sign in</title></head></html>", {
        headers: { "content-type": "text/html" },
      })
    );
    const err = await failure(listModels(server.url));
    assert.equal(err.code, "MODEL_PROTOCOL");
    assert.match(
      err.message,
      /answered with a web page titled "Sign in" instead of a JSON model list/,
    );
    assert.ok(!err.message.includes("<"));
  });
  await t.step("JSON of another shape", async () => {
    await using server = await startServer(() => Response.json({ models: [{ name: "x" }] }));
    const err = await failure(listModels(server.url));
    assert.equal(err.code, "MODEL_PROTOCOL");
    assert.match(err.message, /not an OpenAI model list: at "data"/);
  });
  await t.step("a body over maxBytes", async () => {
    await using server = await startServer(() =>
      Response.json({ data: Array.from({ length: 200 }, (_, i) => ({ id: `model-${i}` })) })
    );
    const err = await failure(listModels(server.url, { maxBytes: 1024 }));
    assert.equal(err.code, "MODEL_PROTOCOL");
    assert.match(err.message, /sent more than 1024 bytes/);
  });
});

Deno.test("listModels() is bounded in time, names a refused connection, and passes the caller's abort", async (t) => {
  const hanging: typeof fetch = (_input, init) =>
    new Promise((_, reject) => {
      init?.signal?.addEventListener("abort", () => reject(init.signal!.reason), { once: true });
    });
  await t.step("timeout", async () => {
    const err = await failure(
      listModels("http://127.0.0.1:9/v1", { fetch: hanging, timeoutMs: 30 }),
    );
    assert.equal(err.code, "MODEL_UNREACHABLE");
    assert.match(err.message, /did not finish within 0\.03 s/);
  });
  await t.step("refused", async () => {
    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const { port } = listener.addr as Deno.NetAddr;
    listener.close();
    const err = await failure(listModels(`http://127.0.0.1:${port}/v1`));
    assert.equal(err.code, "MODEL_UNREACHABLE");
    assert.match(
      err.message,
      new RegExp(`Cannot reach http://127\\.0\\.0\\.1:${port}/v1/models: connection refused`),
    );
  });
  await t.step("the caller's abort", async () => {
    const controller = new AbortController();
    const reason = new DOMException("stop", "AbortError");
    const pending = listModels("http://127.0.0.1:9/v1", {
      fetch: hanging,
      signal: controller.signal,
    });
    controller.abort(reason);
    await assert.rejects(pending, (err) => err === reason);
  });
});
