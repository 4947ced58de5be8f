/** The OpenAPI document describes every /api route, and every route it describes exists. */
import assert from "node:assert/strict";
import { body, serveFixture } from "./_serve_fixture.ts";

Deno.test("GET /api/openapi.json describes every API route and no route that does not exist", async () => {
  await using s = await serveFixture({ scripts: [] });
  const response = await s.call("/api/openapi.json");
  assert.equal(response.status, 200);
  const doc = await body<{ openapi: string; paths: Record<string, Record<string, unknown>> }>(
    response,
  );
  assert.equal(doc.openapi, "3.1.0");
  const described = new Set(
    Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`)
    ),
  );
  const routed = new Set(
    s.app.routes
      .filter((r) => r.path.startsWith("/api/") && r.method !== "ALL")
      .map((r) => `${r.method} ${r.path.replace(/:(\w+)/g, "{$1}")}`)
      .filter((r) => r !== "GET /api/openapi.json"),
  );
  assert.deepEqual([...routed].filter((r) => !described.has(r)).sort(), [], "routes not described");
  assert.deepEqual(
    [...described].filter((r) => !routed.has(r)).sort(),
    [],
    "described, not routed",
  );
  assert.ok(routed.size >= 17, `${routed.size} routes`);
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(methods)) {
      const op = operation as { summary?: string; responses?: Record<string, unknown> };
      assert.ok(op.summary, `${method} ${path} has a summary`);
      assert.ok(op.responses?.["401"], `${method} ${path} documents the 401`);
    }
  }
});
