/**
 * Cost of preparing one tool result for the model (`toolResultContent`: neutralise, redact with
 * the real redactor, cap, fence). Prints the median of 7 rounds, in ms, for three outputs:
 * - a 1 MiB build log (short lines, colour codes);
 * - a 1 MiB JSON document with secret-named keys (the pattern layer's worst everyday case);
 * - a 16 KiB file (the common case: under the cap).
 *
 * Run: `deno run bench/tool_output_bench.ts`.
 *
 * @module
 */
import { createRedactor } from "../src/_util/create_redactor.ts";
import { toolResultContent } from "../src/loop/tool_result_content.ts";

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

const MIB = 1024 * 1024;
const log = Array.from(
  { length: 20_000 },
  (_, i) => `\u001b[32m✓\u001b[0m test ${i} passed (${i % 97} ms) PORT=8080 DEBUG=true`,
).join("\n").slice(0, MIB);
const json = JSON.stringify(
  Array.from({ length: 12_000 }, (_, i) => ({ id: i, name: `item-${i}`, api_key: `k-${i}x9` })),
).slice(0, MIB);
const small = "const answer = 42;\n".repeat(860);

for (const [name, output] of [["1 MiB log", log], ["1 MiB JSON", json], ["16 KiB file", small]]) {
  const times: number[] = [];
  for (let round = 0; round < 8; round++) {
    const redact = createRedactor(["odek-bench-api-key-0123456789"]);
    const t0 = performance.now();
    toolResultContent({ ok: true, output }, { tool: "shell", redact });
    if (round > 0) times.push(performance.now() - t0);
  }
  console.log(`toolResultContent ${name}: ${median(times).toFixed(2)} ms (median of 7)`);
}
