/**
 * odek's run benchmarks (`deno task bench`), through the installed command (`deno task install`
 * into a temporary prefix, with this process's persistent Deno cache, as a user runs odek),
 * against the fake server with zero latency. Each figure is the median of {@linkcode RUNS} runs
 * and is printed with its target (issue 23):
 * - spawn → first model request (≤ 150 ms);
 * - the median gap between model requests of a 30-step run of `echo` shell calls, each in a fresh
 *   bwrap sandbox (≤ 15 ms);
 * - the peak of the summed RSS of the whole process tree during a run of the same kind, sampled
 *   from `/proc` every 25 ms (≤ 120 MB; the shared side-by-side harness samples the same sum), and
 *   of the core (the times come from runs without the sampler, which takes CPU from its run);
 * - a file-heavy run: 30 steps cycling `read_file`, `write_file` and `patch` (not slower than the
 *   figure recorded in docs/performance.md);
 * - the medians of each phase of a step (`ODEK_PROFILE_STEPS=1`, one more shell run);
 * - for comparison, the shell run with `sandbox: none`, and with checkpoints off too.
 * Then the per-call overheads of `bench/sandbox_bench.ts` (a new file-tool scope ≤ 30 ms).
 *
 * @module
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { install } from "../scripts/install.ts";
import { startFakeOpenAIServer } from "../src/testing/fake_openai_server.ts";
import type { ScriptedToolCall, ScriptedTurn } from "../src/testing/fake_openai_server.ts";
import { sandboxBench } from "./sandbox_bench.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url)).replace(/\/$/, "");
const STEPS = 30;
const RUNS = 5;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/**
 * Samples, every 25 ms, the summed RSS (KiB) of the process tree rooted at `root` and the RSS of
 * `root` itself, keeping the peaks; prints them when its stdin closes. One `ps` per sample, summed
 * by awk (Deno refuses `/proc` to a process without `--allow-all`, and a bash walk over `/proc`
 * costs so much CPU that it slows the run it measures).
 */
const SAMPLER = `root=$1; peak=0; own=0
while :; do
  read -r sum r < <(ps -e -o pid=,ppid=,rss= | awk -v root="$root" '
    { parent[$1] = $2; rss[$1] = $3 }
    END { for (p in parent) { q = p; while (q != root && q in parent && q > 1) q = parent[q]
            if (q == root) sum += rss[p] }
          print sum + 0, rss[root] + 0 }')
  [ "\${sum:-0}" -gt $peak ] && peak=$sum
  [ "\${r:-0}" -gt $own ] && own=$r
  if read -r -t 0.025 _; then :; elif [ $? -le 128 ]; then break; fi
done
echo "$peak $own"`;

interface RunFigures {
  firstRequestMs: number;
  gapMs: number;
  treePeakMiB: number;
  corePeakMiB: number;
}

function shellStep(i: number): ScriptedToolCall {
  return { id: `s${i}`, name: "shell", arguments: { command: `echo step ${i}` } };
}

/** Step `i` of the file-heavy run: read, write, patch the file the write made, in turn. */
function fileStep(i: number): ScriptedToolCall {
  const n = Math.floor(i / 3);
  switch (i % 3) {
    case 0:
      return { id: `f${i}`, name: "read_file", arguments: { path: "notes.txt" } };
    case 1:
      return {
        id: `f${i}`,
        name: "write_file",
        arguments: { path: `out/file${n}.txt`, content: `line one\nvalue ${n}\n` },
      };
    default:
      return {
        id: `f${i}`,
        name: "patch",
        arguments: {
          path: `out/file${n}.txt`,
          old_string: `value ${n}`,
          new_string: `value ${n + 1}`,
        },
      };
  }
}

async function oneRun(
  launcher: string,
  step: (i: number) => ScriptedToolCall,
  env: Record<string, string>,
  sample: boolean,
): Promise<RunFigures & { stderr: string }> {
  const turns: ScriptedTurn[] = Array.from({ length: STEPS }, (_, i) => ({
    toolCalls: [step(i)],
    usage: { prompt_tokens: 0, completion_tokens: 0 },
  }));
  turns.push({ text: "done" });
  await using server = await startFakeOpenAIServer({ turns });
  const home = await Deno.makeTempDir({ prefix: "odek-bench-home-" });
  const workspace = await Deno.makeTempDir({ prefix: "odek-bench-ws-" });
  try {
    await Deno.writeTextFile(join(workspace, "notes.txt"), "a note\n".repeat(40));
    const t0 = performance.now();
    const child = new Deno.Command(launcher, {
      args: [
        "run",
        "--base-url",
        server.url,
        "--workspace",
        workspace,
        "--max-iterations",
        String(STEPS + 5),
        "run the steps",
      ],
      env: {
        PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
        HOME: Deno.env.get("HOME") ?? "/root",
        ODEK_HOME: join(home, "odek"),
        NO_COLOR: "1",
        ...env,
      },
      clearEnv: true,
      stdin: "null",
      stdout: "null",
      stderr: "piped",
    }).spawn();
    const sampler = sample
      ? new Deno.Command("bash", {
        args: ["-c", SAMPLER, "odek-rss", String(child.pid)],
        stdin: "piped",
        stdout: "piped",
        stderr: "null",
      }).spawn()
      : undefined;
    const out = await child.output();
    let peaks = [0, 0];
    if (sampler) {
      await sampler.stdin.close();
      const text = new TextDecoder().decode((await sampler.output()).stdout).trim();
      peaks = text.split(" ").map(Number);
    }
    if (!out.success) {
      throw new Error(
        `bench run failed (${out.code}): ${new TextDecoder().decode(out.stderr).slice(-2000)}`,
      );
    }
    const times = server.requests.map((r) => r.receivedAt);
    return {
      firstRequestMs: times[0] - t0,
      gapMs: median(times.slice(1).map((t, i) => t - times[i])),
      treePeakMiB: peaks[0] / 1024,
      corePeakMiB: peaks[1] / 1024,
      stderr: new TextDecoder().decode(out.stderr),
    };
  } finally {
    await Deno.remove(home, { recursive: true });
    await Deno.remove(workspace, { recursive: true });
  }
}

/**
 * {@linkcode RUNS} runs (after one warm-up), their median figures. The times come from runs
 * without the RSS sampler and the peaks from a sampled run after each (`rss`): the sampler's `ps`
 * every 25 ms takes CPU from the run it samples, and made the step gap ~45 % longer at load 8
 * (docs/performance.md, "A step").
 */
async function runs(
  launcher: string,
  step: (i: number) => ScriptedToolCall,
  env: Record<string, string>,
  count = RUNS,
  rss = true,
): Promise<RunFigures & { all: RunFigures[] }> {
  await oneRun(launcher, step, env, false);
  const all: RunFigures[] = [];
  for (let i = 0; i < count; i++) {
    const timed = await oneRun(launcher, step, env, false);
    const sampled = rss ? await oneRun(launcher, step, env, true) : timed;
    all.push({ ...timed, treePeakMiB: sampled.treePeakMiB, corePeakMiB: sampled.corePeakMiB });
  }
  const of = (key: keyof RunFigures) => median(all.map((r) => r[key]));
  return {
    firstRequestMs: of("firstRequestMs"),
    gapMs: of("gapMs"),
    treePeakMiB: of("treePeakMiB"),
    corePeakMiB: of("corePeakMiB"),
    all,
  };
}

const ms = (value: number) => `${value.toFixed(1)} ms`;
const target = (value: number, limit: number, unit: string) =>
  `${value <= limit ? "meets" : "MISSES"} target ≤ ${limit} ${unit}`;
const spread = (all: RunFigures[], key: keyof RunFigures) =>
  `[${all.map((r) => r[key].toFixed(1)).join(", ")}]`;

const bwrap = await new Deno.Command("bwrap", {
  args: ["--version"],
  stdout: "null",
  stderr: "null",
})
  .output().catch(() => null);
const prefix = await Deno.realPath(await Deno.makeTempDir({ prefix: "odek-bench-install-" }));
try {
  const { launcher } = await install(ROOT, join(prefix, "bin"));
  if (!bwrap?.success) {
    console.log(
      "runs with the sandbox on: skipped: bwrap is not installed (apt-get install bubblewrap)",
    );
  } else {
    const shell = await runs(launcher, shellStep, {});
    console.log(
      `spawn → first model request (installed odek, median of ${RUNS}): ${
        ms(shell.firstRequestMs)
      } ${spread(shell.all, "firstRequestMs")}  ${target(shell.firstRequestMs, 150, "ms")}`,
    );
    console.log(
      `step gap, ${STEPS} shell steps each in a fresh bwrap sandbox (median of ${RUNS} medians): ${
        ms(shell.gapMs)
      } ${spread(shell.all, "gapMs")}  ${target(shell.gapMs, 15, "ms")}`,
    );
    console.log(
      `peak RSS of the whole process tree at ${STEPS} steps (median of ${RUNS}): ${
        shell.treePeakMiB.toFixed(0)
      } MB ${spread(shell.all, "treePeakMiB")}  ${
        target(shell.treePeakMiB, 120, "MB")
      }; core alone ${shell.corePeakMiB.toFixed(0)} MB`,
    );
    // One more run with the step phases recorded (src/_util/step_phase.ts): their medians.
    const profiled = await oneRun(launcher, shellStep, { ODEK_PROFILE_STEPS: "1" }, false);
    console.log(
      `step phases of one profiled shell run (median per step, ms; docs/performance.md "A step"):\n${
        profiled.stderr.split("\n").filter((line) => line.startsWith("odek-step:")).map((line) =>
          `  ${line.slice("odek-step:".length)}`
        ).join("\n")
      }`,
    );
    const files = await runs(launcher, fileStep, {});
    console.log(
      `file-heavy run, ${STEPS} read_file/write_file/patch steps: step gap ${ms(files.gapMs)} ${
        spread(files.all, "gapMs")
      }, first request ${ms(files.firstRequestMs)}, tree peak ${
        files.treePeakMiB.toFixed(0)
      } MB  (target: not slower than before issue 23, see docs/performance.md)`,
    );
  }
  for (
    const [label, env] of [["sandbox none", { ODEK_SANDBOX: "none" }], [
      "sandbox none, checkpoints off",
      { ODEK_SANDBOX: "none", ODEK_CHECKPOINTS: "false" },
    ]] as const
  ) {
    const run = await runs(launcher, shellStep, env, 3, false);
    console.log(
      `for comparison, ${label} (median of 3): step gap ${ms(run.gapMs)}, first request ${
        ms(run.firstRequestMs)
      }`,
    );
  }
} finally {
  await Deno.remove(prefix, { recursive: true });
}
await sandboxBench();
