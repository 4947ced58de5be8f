// Found by the adversarial review: each push rescanned the held text with regexes that tried
// every position inside a run of name characters, so a model streaming one 20,000-character
// word in small pieces held the run for 87 s (quadratic per push). This test streams 200,000
// characters; before the fix it ran for about a quarter of an hour.
import assert from "node:assert/strict";
import { createRedactor } from "../../src/_util/create_redactor.ts";
import { StreamRedactor } from "../../src/_util/stream_redactor.ts";

function stream(text: string, piece: number): string {
  const redactor = new StreamRedactor(createRedactor(["known-secret-123"]));
  let out = "";
  for (let i = 0; i < text.length; i += piece) out += redactor.push(text.slice(i, i + piece));
  return out + redactor.flush();
}

Deno.test("StreamRedactor streams a 200,000-character word in 4-character pieces unchanged", () => {
  const word = "x".repeat(200_000);
  assert.equal(stream(word, 4), word);
  const digits = "a1".repeat(100_000);
  assert.equal(stream(digits, 4), digits);
});

Deno.test("StreamRedactor still holds a secret-named line split over pieces, in JSON-escaped text too", () => {
  for (
    const text of [
      '{"a":"x\\nDB_PASSWORD=hunter2-secret\\n"}',
      "note\nexport API_TOKEN=hunter2-secret\n",
    ]
  ) {
    for (const piece of [1, 3, 7]) {
      const out = stream(text, piece);
      assert.ok(!out.includes("hunter2"), `${piece}: ${out}`);
      assert.match(out, /\[REDACTED\]/);
    }
  }
});
