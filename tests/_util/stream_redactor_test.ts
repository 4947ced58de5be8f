import assert from "node:assert/strict";
import { createRedactor } from "../../src/_util/create_redactor.ts";
import { redactKnownValues } from "../../src/_util/redact_known_values.ts";
import { StreamRedactor } from "../../src/_util/stream_redactor.ts";

const TEXT = [
  "Here is the key sk-proj-abcdefghij1234567890XYZ and more prose.",
  'DB_PASSWORD = "a b c d"',
  "Authorization: Basic dXNlcjpwYXNzd29yZA==",
  "curl -H 'Authorization: Bearer abcdefghijklmnopqrstuvwxyz0123'",
  "-----BEGIN OPENSSH PRIVATE KEY-----",
  "AAAA BBBB CCCC",
  "-----END OPENSSH PRIVATE KEY-----",
  "postgres://u:pw-12345678@db/x, and known-secret-123 (its hex: 6b6e6f776e2d7365637265742d313233).",
  "machine api.example.com login ada password n3trc-pw",
  "PORT=8080",
].join("\n");

/** Everything that must never be released. */
const LEAKS = /abcdefghij|a b c|dXNlcjpw|abcdefghijklmnop|AAAA|pw-1234|known-secret|6b6e6f77|n3trc/;

Deno.test("StreamRedactor releases the same text as redacting the whole, whatever the piece size", async (t) => {
  for (const size of [1, 2, 3, 5, 7, 13, 64]) {
    await t.step(`pieces of ${size}`, () => {
      const redact = createRedactor(["known-secret-123"]);
      const whole = redact(TEXT);
      const stream = new StreamRedactor(redact);
      let out = "";
      for (let i = 0; i < TEXT.length; i += size) {
        const piece = stream.push(TEXT.slice(i, i + size));
        assert.doesNotMatch(piece, LEAKS, `released a secret: ${JSON.stringify(piece)}`);
        out += piece;
      }
      out += stream.flush();
      assert.equal(out, whole);
      assert.doesNotMatch(out, LEAKS);
      assert.match(out, /PORT=8080$/);
    });
  }
});

Deno.test("StreamRedactor with a pattern redactor still streams prose word by word", () => {
  const stream = new StreamRedactor(createRedactor([]));
  assert.equal(stream.push("The build "), "The build ");
  assert.equal(stream.push("passed on"), "passed ");
  assert.equal(stream.push(" the first try."), "on the first ");
  assert.equal(stream.flush(), "try.");
});

Deno.test("StreamRedactor bounds what it holds back", () => {
  const stream = new StreamRedactor(createRedactor([]));
  const released = stream.push("x".repeat(20_000));
  assert.ok(released.length > 0, "a blank-free run past 8192 characters must be released");
});

Deno.test("StreamRedactor without patterns behaves as before (known values only)", () => {
  const stream = new StreamRedactor(redactKnownValues(["sk-very-secret-value"]));
  const out = stream.push("key: sk-very-") + stream.push("secret-value, done") + stream.flush();
  assert.equal(out, "key: [REDACTED], done");
});
