/**
 * The danger classifier's benchmark. Prints:
 * - parser load time: `createClassifier()` (web-tree-sitter + the Bash grammar from
 *   `node_modules`), the first load in this process and the median of 5 more;
 * - throughput: commands per second over the everyday corpus (`tests/danger/everyday_corpus.ts`,
 *   the commands a coding agent runs all day) and over the classifier's test table (adversarial
 *   spellings, wrappers, nested payloads), after a warm-up pass; median of 7 rounds;
 * - the slowest corpus command.
 *
 * Run: `deno run --allow-read --allow-env bench/classifier_bench.ts`.
 *
 * @module
 */
import type { ClassifyContext } from "../src/danger/classifier.ts";
import { createClassifier } from "../src/danger/create_classifier.ts";
import { CONSTRUCT_ROWS } from "../tests/danger/_table_constructs.ts";
import { NORMALISE_ROWS } from "../tests/danger/_table_normalise.ts";
import { TOOL_ROWS } from "../tests/danger/_table_tools.ts";
import { WRAPPER_ROWS } from "../tests/danger/_table_wrappers.ts";
import { EVERYDAY_CORPUS } from "../tests/danger/everyday_corpus.ts";

const CONTEXT: ClassifyContext = {
  workspace: "/home/ada/proj",
  home: "/home/ada",
  protectedRoots: ["/home/ada/.odek", "/opt/odek"],
  trustLevel: "standard",
};

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

const first = performance.now();
const classifier = await createClassifier();
const firstLoadMs = performance.now() - first;
const loads: number[] = [];
for (let i = 0; i < 5; i++) {
  const t0 = performance.now();
  await createClassifier();
  loads.push(performance.now() - t0);
}

function throughput(commands: readonly string[]): { perSecond: number; msPerCommand: number } {
  for (const command of commands) classifier.classifyCommand(command, CONTEXT);
  const rounds: number[] = [];
  for (let round = 0; round < 7; round++) {
    const t0 = performance.now();
    for (const command of commands) {
      classifier.classifyToolCall({ name: "shell", args: { command } }, CONTEXT);
    }
    rounds.push(performance.now() - t0);
  }
  const ms = median(rounds);
  return { perSecond: (commands.length / ms) * 1000, msPerCommand: ms / commands.length };
}

const adversarial = [...CONSTRUCT_ROWS, ...NORMALISE_ROWS, ...WRAPPER_ROWS, ...TOOL_ROWS]
  .map(([command]) => command);
const everyday = throughput(EVERYDAY_CORPUS);
const table = throughput(adversarial);

let slowest = { command: "", ms: 0 };
for (const command of EVERYDAY_CORPUS) {
  const t0 = performance.now();
  for (let i = 0; i < 20; i++) classifier.classifyCommand(command, CONTEXT);
  const ms = (performance.now() - t0) / 20;
  if (ms > slowest.ms) slowest = { command, ms };
}

const f = (n: number, digits = 1) => n.toFixed(digits);
console.log(`classifier load: first ${f(firstLoadMs)} ms, then median ${f(median(loads))} ms`);
console.log(
  `everyday corpus (${EVERYDAY_CORPUS.length} commands): ${f(everyday.perSecond, 0)} commands/s ` +
    `(${f(everyday.msPerCommand, 3)} ms each)`,
);
console.log(
  `adversarial table (${adversarial.length} commands): ${f(table.perSecond, 0)} commands/s ` +
    `(${f(table.msPerCommand, 3)} ms each)`,
);
console.log(`slowest everyday command: ${f(slowest.ms, 3)} ms: ${JSON.stringify(slowest.command)}`);
