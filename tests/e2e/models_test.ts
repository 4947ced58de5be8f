/** `odek models` against the fake server's `GET /v1/models` and against a 404. */
import assert from "node:assert/strict";
import { startFakeOpenAIServer } from "../../src/testing/fake_openai_server.ts";
import { odekFixture } from "./_odek.ts";

Deno.test("odek models lists the server's models, sorted, with owner and window; --json too", async () => {
  await using fx = await odekFixture();
  await using server = await startFakeOpenAIServer({
    turns: [],
    models: ["zeta", { id: "alpha", context_length: 32_768, owned_by: "lab" }],
  });
  const env = { ODEK_API_KEY: "sk-models-0001" };
  const text = await fx.run(["models", "--base-url", server.url], { env });
  assert.equal(text.code, 0, text.stderr);
  assert.equal(text.stdout, "alpha  (owned by lab, 32768 tokens)\nzeta  (owned by odek-fake)\n");
  assert.equal(server.requests.length, 0, "no chat request");
  const json = await fx.run(["models", "--base-url", server.url, "--json"], { env });
  assert.equal(json.code, 0, json.stderr);
  const listed = JSON.parse(json.stdout);
  assert.equal(listed.baseUrl, server.url);
  assert.deepEqual(listed.models.map((m: { id: string }) => m.id), ["alpha", "zeta"]);
  assert.doesNotMatch(json.stdout + text.stderr, /sk-models-0001/);
});

Deno.test("odek models against a server with no /models route says what to check, exit 1", async () => {
  await using fx = await odekFixture();
  await using server = await startFakeOpenAIServer({ turns: [] });
  const base = server.url.replace(/\/v1$/, "");
  const result = await fx.run(["models", "--base-url", base]);
  assert.equal(result.code, 1, result.stderr);
  assert.match(result.stderr, /^odek: GET http:\/\/127\.0\.0\.1:\d+\/models answered HTTP 404: /);
  assert.match(result.stderr, /so try --base-url http:\/\/127\.0\.0\.1:\d+\/v1\./);
});

Deno.test("odek models: --provider picks the preset (--base-url wins), an unknown one is a usage error", async () => {
  await using fx = await odekFixture();
  await using server = await startFakeOpenAIServer({ turns: [], models: ["llama-3"] });
  const ok = await fx.run(["models", "--provider", "groq", "--base-url", server.url], {
    env: { GROQ_API_KEY: "gsk-models-0001" },
  });
  assert.equal(ok.code, 0, ok.stderr);
  assert.equal(ok.stdout, "llama-3  (owned by odek-fake)\n");
  const bad = await fx.run(["models", "--provider", "openia"]);
  assert.equal(bad.code, 2, bad.stderr);
  assert.match(bad.stderr, /"openia"/);
  const help = await fx.run(["models", "--help"]);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /^Usage: odek models/);
});
