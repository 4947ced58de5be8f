import assert from "node:assert/strict";
import { jsonDepth } from "../../src/_util/json_depth.ts";
import { redactSecretPatterns } from "../../src/_util/redact_secret_patterns.ts";

// Found by the adversarial review: a model reply whose tool-call arguments held one 20 MB JSON
// string crashed the run with "Maximum call stack size exceeded" inside the quoted-value regex.

Deno.test("redactSecretPatterns() survives a 20 MB quoted JSON value", () => {
  const text = JSON.stringify({ path: "a".repeat(20_000_000) });
  assert.equal(redactSecretPatterns(text), text);
});

Deno.test("redactSecretPatterns() survives 5 million escapes in one JSON string and still redacts after them", () => {
  const key = "ghp_0123456789abcdefghijABCDEFGHIJ012345";
  const text = JSON.stringify({ content: "\n".repeat(5_000_000) + `token ${key} end` });
  const out = redactSecretPatterns(text);
  assert.equal(out.length, text.length - key.length + "[REDACTED]".length);
  assert.ok(!out.includes(key));
  assert.ok(out.endsWith('token [REDACTED] end"}'));
});

Deno.test("redactSecretPatterns() still redacts a secret-named quoted value in a huge document", () => {
  const text = `{"pad":"${"x\\n".repeat(3_000_000)}","api_key":"hunter2-secret-value"}`;
  const out = redactSecretPatterns(text);
  assert.ok(out.endsWith(`"api_key":"[REDACTED]"}`), out.slice(-80));
});

Deno.test("jsonDepth() counts brackets outside strings only, without recursion", () => {
  assert.equal(jsonDepth('{"a":"[[[{{{"}'), 1);
  assert.equal(jsonDepth('{"a":"\\"[[["}'), 1);
  assert.equal(jsonDepth("1"), 0);
  assert.equal(jsonDepth("[".repeat(1_000_000)), 1_000_000);
});
