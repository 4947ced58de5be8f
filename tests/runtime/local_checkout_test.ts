import assert from "node:assert/strict";
import { OdekError } from "../../src/_util/odek_error.ts";
import { createRuntime } from "../../src/runtime/create_runtime.ts";
import { localCheckout } from "../../src/_util/local_checkout.ts";
import { REPO_ROOT } from "./_runtime_fixture.ts";

Deno.test("localCheckout() finds the checkout of a file: module and refuses any other import, naming the fix", async (t) => {
  await t.step("a file: URL of src/runtime/ is two levels under the checkout", () => {
    assert.equal(
      localCheckout("file:///home/ada/odek/src/runtime/create_runtime.ts"),
      "/home/ada/odek",
    );
    assert.equal(localCheckout("file:///opt/my%20odek/src/runtime/x.ts"), "/opt/my odek");
  });
  for (
    const url of [
      "http://127.0.0.1:8000/src/runtime/create_runtime.ts",
      "jsr:@odek/odek@0.1.0/src/runtime/create_runtime.ts",
      "data:text/javascript,0",
    ]
  ) {
    await t.step(`${url.slice(0, url.indexOf(":"))}: SANDBOX_UNAVAILABLE`, () => {
      assert.throws(
        () => localCheckout(url),
        (error) =>
          error instanceof OdekError && error.code === "SANDBOX_UNAVAILABLE" &&
          error.message.includes(url) &&
          /import <checkout>\/src\/mod\.ts by file path/.test(error.message) &&
          error.message.includes("docs/library.md"),
      );
    });
  }
});

Deno.test("createRuntime() without installDir runs its tool children from the checkout it was loaded from", async () => {
  const home = await Deno.makeTempDir();
  try {
    await using runtime = await createRuntime({ env: { HOME: home } });
    assert.equal(runtime.paths.installDir, REPO_ROOT.replace(/\/$/, ""));
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});
