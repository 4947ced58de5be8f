import assert from "node:assert/strict";
import { redactKnownValues, secretEnvValues } from "../../src/_util/redact_known_values.ts";

const SECRET = "p@ss w/rd+Zx9";

function hex(text: string): string {
  return Array.from(new TextEncoder().encode(text), (b) => b.toString(16).padStart(2, "0")).join(
    "",
  );
}

Deno.test("redactKnownValues() replaces the value and each encoded form", async (t) => {
  const redact = redactKnownValues([SECRET]);
  const b64 = btoa(SECRET);
  const forms: Record<string, string> = {
    plain: SECRET,
    base64: b64,
    "base64 unpadded": b64.replace(/=+$/, ""),
    "base64url": b64.replaceAll("+", "-").replaceAll("/", "_"),
    "hex lower": hex(SECRET),
    "hex upper": hex(SECRET).toUpperCase(),
    "url-encoded": encodeURIComponent(SECRET),
    "query-encoded": encodeURIComponent(SECRET).replaceAll("%20", "+"),
  };
  for (const [name, form] of Object.entries(forms)) {
    await t.step(
      name,
      () => assert.equal(redact(`a ${form} b ${form}`), "a [REDACTED] b [REDACTED]"),
    );
  }
});

Deno.test("redactKnownValues() ignores short values and treats regex characters literally", () => {
  assert.equal(redactKnownValues(["short"])("a short b"), "a short b");
  assert.equal(redactKnownValues([])("unchanged"), "unchanged");
  const redact = redactKnownValues(["a.b*c+d?(e)"]);
  assert.equal(redact("xa.b*c+d?(e)x aXbbbcd(e)"), "x[REDACTED]x aXbbbcd(e)");
});

Deno.test("redactKnownValues() prefers the longer of two overlapping secrets", () => {
  const redact = redactKnownValues(["abcdefgh", "abcdefgh-ijkl"]);
  assert.equal(redact("abcdefgh-ijkl abcdefgh"), "[REDACTED] [REDACTED]");
});

Deno.test("secretEnvValues() picks values of secret-named variables by whole segment", () => {
  const env = {
    OPENAI_API_KEY: "sk-1234567890",
    github_token: "ghp_abcdefgh",
    DB_PASS: "hunter2hunter2",
    "MY-SECRETKEY": "0123456789",
    AWS_SECRET_ACCESS_KEY: "sk-1234567890",
    KEYBOARD_LAYOUT: "dvorak-international",
    PASSPHRASE_HINT: "long enough value",
    TOKENIZER_PATH: "/usr/share/tokenizer",
    SHORT_TOKEN: "abc",
    HOME: "/home/someone",
  };
  assert.deepEqual(secretEnvValues(env), [
    "sk-1234567890",
    "ghp_abcdefgh",
    "hunter2hunter2",
    "0123456789",
  ]);
});
