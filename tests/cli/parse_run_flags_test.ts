import assert from "node:assert/strict";
import { OdekError } from "../../src/_util/odek_error.ts";
import { parseRunFlags } from "../../src/cli/parse_run_flags.ts";

Deno.test("parseRunFlags() collects every --add-dir in order and keeps the :ro suffix for the parser", () => {
  const flags = parseRunFlags(["--add-dir", "../cache", "--add-dir=/srv/ref:ro", "task"], "run");
  assert.deepEqual(flags.addDirs, ["../cache", "/srv/ref:ro"]);
  assert.deepEqual(parseRunFlags(["task"], "run").addDirs, []);
  assert.deepEqual(parseRunFlags(["--add-dir", "/x"], "continue").addDirs, ["/x"]);
});

Deno.test("parseRunFlags() turns --dedicated-workspace into the config layer's dedicatedWorkspace", () => {
  const flags = parseRunFlags(["--dedicated-workspace", "task"], "run");
  assert.equal(flags.dedicatedWorkspace, true);
  assert.equal(flags.layer.dedicatedWorkspace, true);
  const plain = parseRunFlags(["task"], "run");
  assert.equal(plain.dedicatedWorkspace, false);
  assert.equal(plain.layer.dedicatedWorkspace, undefined, "absent flag must not override config");
});

Deno.test("parseRunFlags() refuses --workspace together with --dedicated-workspace", () => {
  assert.throws(
    () => parseRunFlags(["--workspace", "/w", "--dedicated-workspace", "task"], "run"),
    (error: OdekError) => error.code === "USAGE" && /pass one/.test(error.message),
  );
});
