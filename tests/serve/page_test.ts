/** Every file the page names is served (the page's own and the pinned libraries), with its type. */
import assert from "node:assert/strict";
import { serveFixture, TEST_TOKEN } from "./_serve_fixture.ts";

Deno.test("every script, stylesheet and icon web/index.html names is served from odek itself", async () => {
  await using s = await serveFixture({ scripts: [] });
  const page = await s.app.request("/", {
    headers: { host: "127.0.0.1", cookie: `odek_token=${TEST_TOKEN}` },
  });
  const html = await page.text();
  const named = [...html.matchAll(/(?:src|href)="([^"#]+)"/g)].map((m) => m[1]);
  assert.ok(named.length >= 7, named.join());
  for (const path of named) {
    assert.ok(path.startsWith("/"), `${path} is served by odek, not a CDN`);
    const response = await s.app.request(path, { headers: { host: "127.0.0.1" } });
    assert.equal(response.status, 200, path);
    const type = response.headers.get("content-type") ?? "";
    assert.match(type, /javascript|css|svg/, `${path}: ${type}`);
    assert.ok((await response.arrayBuffer()).byteLength > 100, path);
  }
  const missing = await s.app.request("/vendor/other.js", { headers: { host: "127.0.0.1" } });
  assert.equal(missing.status, 404);
  await missing.body?.cancel();
});
