import assert from "node:assert/strict";
import { createRedactor } from "../../src/_util/create_redactor.ts";

Deno.test("createRedactor() applies the known values, their encodings and the patterns", () => {
  const redact = createRedactor(["odek-key-0123456789"]);
  assert.equal(
    redact(
      `k=odek-key-0123456789 b=${
        btoa("odek-key-0123456789")
      } ghp_0123456789abcdefghijABCDEFGHIJ012345`,
    ),
    "k=[REDACTED] b=[REDACTED] [REDACTED]",
  );
  assert.equal(redact.patterns, true);
  assert.ok(redact.forms.includes("odek-key-0123456789"));
});

Deno.test("createRedactor() learns values it redacted by name, with their encodings", () => {
  const redact = createRedactor([]);
  assert.equal(redact("DB_PASSWORD=pg-Pa55word-1\n"), "DB_PASSWORD=[REDACTED]\n");
  assert.ok(redact.forms.includes("pg-Pa55word-1"));
  assert.equal(redact("the password is pg-Pa55word-1."), "the password is [REDACTED].");
  assert.equal(redact(`b64 ${btoa("pg-Pa55word-1")}`), "b64 [REDACTED]");
});

Deno.test("createRedactor() does not learn plain words (a secret-named value without a digit)", () => {
  const redact = createRedactor([]);
  redact("SORT_KEY=created_at\nAPI_KEY=short1\n");
  assert.equal(redact("order by created_at, short1"), "order by created_at, short1");
  assert.deepEqual(redact.forms, []);
});
