import assert from "node:assert/strict";
import { terminalSafeJson } from "../../src/cli/terminal_safe_json.ts";

Deno.test("terminalSafeJson() escapes what a terminal would act on and keeps the data", () => {
  const value = {
    text:
      "esc\u001b[2J c1\u009b bidi\u202E\u2066 zw\u200b\u2060 tag\u{E0041}\u{E007F} ls\u2028 ok é 中 😀",
    n: 1,
  };
  const line = terminalSafeJson(value);
  assert.doesNotMatch(
    line,
    // deno-lint-ignore no-control-regex
    /[\u0000-\u001f\u0080-\u009f\u202a-\u202e\u2066-\u2069\u200b\u2060\u2028]/,
  );
  assert.doesNotMatch(line, /[\u{E0000}-\u{E007F}]/u);
  assert.ok(line.includes("é 中 😀"), "ordinary characters stay readable");
  assert.deepEqual(JSON.parse(line), value);
});
