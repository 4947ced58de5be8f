import assert from "node:assert/strict";
import { createClassifier } from "../../src/danger/create_classifier.ts";
import { CONTEXT } from "./_table.ts";
import { EVERYDAY_CORPUS } from "./everyday_corpus.ts";

const classifier = await createClassifier();

/** The corpus commands whose verdict at `standard` is not `allow`, with the reason. */
function asking(commands: readonly string[]): string[] {
  return commands.flatMap((command) => {
    const verdict = classifier.classifyToolCall({ name: "shell", args: { command } }, CONTEXT);
    return verdict.decision === "allow" ? [] : [`${command} -> ${verdict.reason}`];
  });
}

Deno.test("classifyToolCall() asks for at most 3% of the everyday corpus at trust level standard", () => {
  assert.ok(EVERYDAY_CORPUS.length >= 200, `only ${EVERYDAY_CORPUS.length} commands`);
  assert.equal(new Set(EVERYDAY_CORPUS).size, EVERYDAY_CORPUS.length, "duplicate commands");
  const asks = asking(EVERYDAY_CORPUS);
  const share = asks.length / EVERYDAY_CORPUS.length;
  console.log(
    `everyday corpus: ${asks.length} of ${EVERYDAY_CORPUS.length} commands ask at standard ` +
      `(${(share * 100).toFixed(1)}%):\n  ${asks.join("\n  ")}`,
  );
  assert.ok(share <= 0.03, `${(share * 100).toFixed(1)}% ask:\n${asks.join("\n")}`);
});

Deno.test("classifyToolCall() denies nothing in the everyday corpus", () => {
  for (const command of EVERYDAY_CORPUS) {
    const verdict = classifier.classifyToolCall({ name: "shell", args: { command } }, CONTEXT);
    assert.notEqual(verdict.decision, "deny", `${command}: ${verdict.reason}`);
  }
});

Deno.test("classifyToolCall() counts a noisy command as asking (the share can fail)", () => {
  assert.deepEqual(asking(["ls", "curl https://e.example"]).length, 1);
});
