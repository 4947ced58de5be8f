import assert from "node:assert/strict";
import { OdekError } from "../../src/_util/odek_error.ts";
import { generateSessionId } from "../../src/session/generate_session_id.ts";
import { validateSessionId } from "../../src/session/validate_session_id.ts";

Deno.test("validateSessionId() accepts names by the rule and refuses everything else", async (t) => {
  const valid = ["a", "0", "fix-login_bug.v2", "A".repeat(64), "20260728-193905-a1b2c3"];
  const invalid = [
    "",
    ".",
    "..",
    "../x",
    "a/b",
    "a\\b",
    "-a",
    "_a",
    ".a",
    "a b",
    "a\u0000",
    "a\n",
    "é",
    "A".repeat(65),
  ];
  for (const id of valid) {
    await t.step(`accepts ${JSON.stringify(id)}`, () => assert.equal(validateSessionId(id), id));
  }
  for (const id of invalid) {
    await t.step(`refuses ${JSON.stringify(id)}`, () => {
      assert.throws(() => validateSessionId(id), (error: OdekError) => {
        assert.equal(error.code, "USAGE");
        assert.match(error.message, /1 to 64 characters/);
        return true;
      });
    });
  }
});

Deno.test("generateSessionId() stamps the UTC time and random hex, and is a valid id", () => {
  const now = new Date("2026-07-28T19:39:05.999Z");
  const ids = new Set(Array.from({ length: 20 }, () => generateSessionId(now)));
  assert.ok(ids.size > 1, "ids must differ");
  for (const id of ids) {
    assert.match(id, /^20260728-193905-[0-9a-f]{6}$/);
    assert.equal(validateSessionId(id), id);
  }
});
