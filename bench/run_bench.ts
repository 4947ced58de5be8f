/**
 * odek's benchmarks (`deno task bench`). Prints:
 * - cold start of `odek --version`: median of 10 direct `deno run` invocations with the task's
 *   flags, after one warm-up (target ≤ 50 ms);
 * - spawn → first model request against the fake server;
 * - the median gap between model requests in a 30-step run of `echo` shell calls against the fake
 *   server with zero latency, with the sandbox on (target ≤ 15 ms per step) and, for comparison,
 *   with `sandbox: none`, and with `sandbox: none` and checkpoints off (what a step's two
 *   checkpoints of an empty workspace cost);
 * - per-call overhead of `read_file` (reused child, new scope) and of `shell` in a fresh sandbox
 *   (`bench/sandbox_bench.ts`).
 *
 * @module
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startFakeOpenAIServer } from "../src/testing/fake_openai_server.ts";
import type { ScriptedTurn } from "../src/testing/fake_openai_server.ts";
import { sandboxBench } from "./sandbox_bench.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const MAIN = join(ROOT, "main.ts");
const FLAGS = [
  "run",
  "--no-prompt",
  "--allow-read",
  "--allow-write",
  "--allow-env",
  "--allow-net",
  "--allow-run",
  "--allow-sys=uid,gid,networkInterfaces",
];
const STEPS = 30;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

async function coldStart(): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < 11; i++) {
    const t0 = performance.now();
    const out = await new Deno.Command(Deno.execPath(), {
      args: [...FLAGS, MAIN, "--version"],
      stdout: "null",
      stderr: "piped",
    }).output();
    const ms = performance.now() - t0;
    if (!out.success) {
      throw new Error(`odek --version failed: ${new TextDecoder().decode(out.stderr)}`);
    }
    if (i > 0) times.push(ms);
  }
  return times;
}

async function stepRun(
  sandbox: "bwrap" | "none",
  checkpoints = true,
): Promise<{ firstRequestMs: number; gaps: number[]; exit: number }> {
  const turns: ScriptedTurn[] = Array.from({ length: STEPS }, (_, i) => ({
    toolCalls: [{ id: `s${i}`, name: "shell", arguments: { command: `echo step ${i}` } }],
    usage: { prompt_tokens: 0, completion_tokens: 0 },
  }));
  turns.push({ text: "done" });
  await using server = await startFakeOpenAIServer({ turns });
  const home = await Deno.makeTempDir({ prefix: "odek-bench-home-" });
  const workspace = await Deno.makeTempDir({ prefix: "odek-bench-ws-" });
  try {
    const env = {
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
      HOME: Deno.env.get("HOME") ?? "/root",
      ODEK_HOME: home,
      ODEK_SANDBOX: sandbox,
      ODEK_CHECKPOINTS: String(checkpoints),
      NO_COLOR: "1",
    };
    const t0 = performance.now();
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        ...FLAGS,
        MAIN,
        "run",
        "--base-url",
        server.url,
        "--workspace",
        workspace,
        "--max-iterations",
        String(STEPS + 5),
        "echo thirty times",
      ],
      env,
      clearEnv: true,
      stdout: "null",
      stderr: "piped",
    }).output();
    if (!out.success) {
      throw new Error(
        `bench run failed (${out.code}): ${new TextDecoder().decode(out.stderr).slice(-2000)}`,
      );
    }
    const times = server.requests.map((r) => r.receivedAt);
    const gaps = times.slice(1).map((t, i) => t - times[i]);
    return { firstRequestMs: times[0] - t0, gaps, exit: out.code };
  } finally {
    await Deno.remove(home, { recursive: true });
    await Deno.remove(workspace, { recursive: true });
  }
}

const fmt = (ms: number) => `${ms.toFixed(1)} ms`;
const verdict = (value: number, target: number) =>
  (value <= target ? "meets" : "MISSES") + ` target ≤ ${target} ms`;

const cold = await coldStart();
console.log(
  `cold start (odek --version, median of 10): ${fmt(median(cold))}  [min ${
    fmt(Math.min(...cold))
  }, max ${fmt(Math.max(...cold))}]  ${verdict(median(cold), 50)}`,
);
for (const sandbox of ["bwrap", "none"] as const) {
  if (sandbox === "bwrap") {
    const probe = await new Deno.Command("bwrap", {
      args: ["--version"],
      stdout: "null",
      stderr: "null",
    }).output().catch(() => null);
    if (!probe?.success) {
      console.log(
        "per step (sandbox bwrap): skipped: bwrap is not installed (apt-get install bubblewrap)",
      );
      continue;
    }
  }
  const run = await stepRun(sandbox);
  const perStep = median(run.gaps);
  console.log(`spawn → first model request (sandbox ${sandbox}): ${fmt(run.firstRequestMs)}`);
  console.log(
    `per step, median gap between model requests over ${run.gaps.length} gaps (sandbox ${sandbox}): ${
      fmt(perStep)
    }  [min ${fmt(Math.min(...run.gaps))}, max ${fmt(Math.max(...run.gaps))}]${
      sandbox === "bwrap" ? `  ${verdict(perStep, 15)}` : ""
    }`,
  );
}
{
  // What checkpoints add to a shell step (every one can write the workspace): the same run with
  // them off.
  const run = await stepRun("none", false);
  console.log(
    `per step, median gap over ${run.gaps.length} gaps (sandbox none, checkpoints off): ${
      fmt(median(run.gaps))
    }  [min ${fmt(Math.min(...run.gaps))}, max ${fmt(Math.max(...run.gaps))}]`,
  );
}
await sandboxBench();
