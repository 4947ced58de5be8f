/**
 * Writes `demo/fix_the_bug.cassette.json`: the demo job's model turns are scripted here (no model
 * is reachable), served by the fake OpenAI-compatible server in the exact streaming wire format,
 * and recorded by odek's own `--record` while the tools really run. Machine paths in the recorded
 * requests are replaced by `<workspace>`. Run it after changing the script:
 *
 *   deno run --allow-read --allow-write --allow-env --allow-net --allow-run scripts/record_demo_cassette.ts
 *
 * @module
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type ScriptedTurn, startFakeOpenAIServer } from "../src/testing/fake_openai_server.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const OUT = join(ROOT, "demo", "fix_the_bug.cassette.json");
export const DEMO_TASK =
  "Write stats.sh, a bash script that prints the mean and median of the numbers it is given. Run it on 3 1 4 1 5 9 2 6, check the numbers are right, fix any bug, run it again on those numbers and on 7 3 5, and summarise.";

const buggy = `#!/usr/bin/env bash
# Prints the mean and median of the numbers given as arguments.
set -euo pipefail
nums=("$@")
count=\${#nums[@]}
sum=0
for n in "\${nums[@]}"; do sum=$((sum + n)); done
echo "mean: $(awk -v s="$sum" -v c="$count" 'BEGIN { printf "%.3f", s / c }')"
mid=$((count / 2))
if ((count % 2 == 0)); then
  echo "median: $(awk -v a="\${nums[mid - 1]}" -v b="\${nums[mid]}" 'BEGIN { print (a + b) / 2 }')"
else
  echo "median: \${nums[mid]}"
fi
`;
const fixed = buggy.replace('nums=("$@")', "mapfile -t nums < <(printf '%s\\n' \"$@\" | sort -n)");

const turns: ScriptedTurn[] = [
  {
    text: "I'll write the script first.",
    toolCalls: [{
      id: "call_write_1",
      name: "write_file",
      arguments: { path: "stats.sh", content: buggy },
    }],
  },
  {
    text: "Now let me run it on the given numbers.",
    toolCalls: [{
      id: "call_run_1",
      name: "shell",
      arguments: { command: "bash stats.sh 3 1 4 1 5 9 2 6" },
    }],
  },
  {
    text:
      "The mean is right (31 / 8 = 3.875), but the median is not: sorted, the numbers are 1 1 2 3 4 5 6 9, so the median is (3 + 4) / 2 = 3.5, not 3. I'll check the sorted order and reread the script side by side.",
    toolCalls: [
      {
        id: "call_sort",
        name: "shell",
        arguments: { command: "printf '%s\\n' 3 1 4 1 5 9 2 6 | sort -n | tr '\\n' ' '" },
      },
      { id: "call_read", name: "read_file", arguments: { path: "stats.sh" } },
    ],
  },
  {
    text:
      "Found it: line 4 keeps the numbers in the order given, so the median takes the middle of the unsorted list. I'll sort them numerically first.",
    toolCalls: [{
      id: "call_write_2",
      name: "write_file",
      arguments: { path: "stats.sh", content: fixed },
    }],
  },
  {
    toolCalls: [{
      id: "call_run_2",
      name: "shell",
      arguments: { command: "bash stats.sh 3 1 4 1 5 9 2 6 && bash stats.sh 7 3 5" },
    }],
  },
  {
    text:
      "Done. `stats.sh` prints the mean and median of its arguments.\n\n- Bug: the median was taken from the unsorted list, so `3 1 4 1 5 9 2 6` gave a median of 3.\n- Fix: the numbers are sorted numerically (`sort -n`) before the median is taken.\n- Check: `3 1 4 1 5 9 2 6` now gives mean 3.875 and median 3.5, and `7 3 5` gives mean 5.000 and median 5, both correct.",
  },
];

/** Readable and diffable: one line per message and per streamed chunk. */
function formatCassette(
  cassette: {
    schema: string;
    turns: { request: Record<string, unknown>; response: Record<string, unknown> }[];
  },
): string {
  const line = (value: unknown) => JSON.stringify(value);
  const turns = cassette.turns.map(({ request, response }) => {
    const { messages, ...rest } = request as { messages: unknown[] };
    const { chunks, ...status } = response as { chunks?: unknown[] };
    const req = `{ ${
      Object.entries(rest).map(([k, v]) => `${line(k)}: ${line(v)}`).join(", ")
    },\n      "messages": [\n${
      (messages ?? []).map((m) => `        ${line(m)}`).join(",\n")
    }\n      ] }`;
    const res = `{ ${
      Object.entries(status).map(([k, v]) => `${line(k)}: ${line(v)}`).join(", ")
    },\n      "chunks": [\n${
      (chunks ?? []).map((c) => `        ${line(c)}`).join(",\n")
    }\n      ] }`;
    return `    {\n      "request": ${req},\n      "response": ${res}\n    }`;
  });
  return `{\n  "schema": ${line(cassette.schema)},\n  "turns": [\n${turns.join(",\n")}\n  ]\n}\n`;
}

if (import.meta.main) {
  await using server = await startFakeOpenAIServer({ turns });
  const workspace = await Deno.makeTempDir({ dir: "/var/tmp", prefix: "odek-demo-rec-" });
  const home = await Deno.makeTempDir({ dir: "/var/tmp", prefix: "odek-demo-rec-home-" });
  const tmp = `${OUT}.tmp`;
  try {
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--allow-read",
        "--allow-write",
        "--allow-env",
        "--allow-net",
        "--allow-run",
        join(ROOT, "main.ts"),
        "run",
        "--base-url",
        server.url,
        "--model",
        "demo-model",
        "--workspace",
        workspace,
        "--record",
        tmp,
        DEMO_TASK,
      ],
      env: { ...Deno.env.toObject(), ODEK_HOME: home },
      stdout: "inherit",
      stderr: "inherit",
    }).output();
    if (!out.success) throw new Error(`the recording run failed with exit code ${out.code}`);
    const text = (await Deno.readTextFile(tmp)).replaceAll(
      await Deno.realPath(workspace),
      "<workspace>",
    ).replaceAll(workspace, "<workspace>");
    await Deno.writeTextFile(OUT, formatCassette(JSON.parse(text)));
    console.error(`wrote ${OUT}`);
  } finally {
    await Deno.remove(tmp).catch(() => {});
    await Deno.remove(workspace, { recursive: true });
    await Deno.remove(home, { recursive: true });
  }
}
