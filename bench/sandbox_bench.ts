/**
 * Per-call overhead of the sandboxed tools (issue 3's targets), measured through the real broker
 * pieces with bwrap:
 * - `read_file` in a reused child (same scope): median of 200 calls (target ≤ 2 ms);
 * - `read_file` with a new scope (a fresh bwrap + deno child per call): median of 20 (≤ 30 ms);
 * - `shell` (`true`) in a fresh sandbox, started on demand and from a spare started while the
 *   loop waited for the model: median of 30 each (≤ 10 ms).
 *
 * Run by `deno task bench` (through `bench/run_bench.ts`) or alone:
 * `deno run --allow-read --allow-write --allow-env --allow-run --allow-sys bench/sandbox_bench.ts`.
 *
 * @module
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { SandboxStandby } from "../src/broker/_sandbox_standby.ts";
import { findBwrap } from "../src/broker/find_bwrap.ts";
import type { PermissionSet } from "../src/broker/permission_set.ts";
import { runShell } from "../src/broker/run_shell.ts";
import { sandboxContextFromEnvironment } from "../src/broker/sandbox_context.ts";
import { ToolChildPool } from "../src/broker/tool_child_pool.ts";

const TOOLS = fileURLToPath(new URL("../tools", import.meta.url));

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

function line(name: string, times: number[], target: number): string {
  const m = median(times);
  return `${name}: ${m.toFixed(2)} ms median of ${times.length}  [min ${
    Math.min(...times).toFixed(2)
  }, max ${Math.max(...times).toFixed(2)}]  ${
    m <= target ? "meets" : "MISSES"
  } target ≤ ${target} ms`;
}

function scope(workspace: string, extra: string[] = [], write = false): PermissionSet {
  return {
    readPaths: [workspace, ...extra],
    writePaths: write ? [workspace] : [],
    network: { type: "none" },
    runBinaries: [],
    envNames: [],
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Run the three measurements and print one line each (or why they were skipped).
 *
 * @returns the printed lines
 */
export async function sandboxBench(): Promise<string[]> {
  if ((await findBwrap()) === null) {
    const skipped = [
      "sandbox overhead: skipped: bwrap is not installed (apt-get install bubblewrap)",
    ];
    console.log(skipped[0]);
    return skipped;
  }
  const root = await Deno.realPath(
    await Deno.makeTempDir({ dir: "/var/tmp", prefix: "odek-bench-" }),
  );
  const workspace = join(root, "ws");
  await Deno.mkdir(workspace);
  await Deno.writeTextFile(join(workspace, "a.txt"), "hello\n".repeat(50));
  const base = await sandboxContextFromEnvironment({
    odekHome: join(root, "odek_home"),
    installDir: join(root, "install"),
    mode: "bwrap",
  });
  const context = { ...base, toolsDir: TOOLS };
  const out: string[] = [];
  const pool = new ToolChildPool({ context });
  try {
    const set = scope(workspace);
    const read = () => pool.call("read_file", { path: "a.txt" }, { set, workspace });
    const first = await read();
    if (!first.ok) throw new Error(`read_file failed: ${first.error.message}`);
    const reused: number[] = [];
    for (let i = 0; i < 210; i++) {
      const t0 = performance.now();
      await read();
      if (i >= 10) reused.push(performance.now() - t0);
    }
    out.push(line("read_file, reused child (same scope)", reused, 2));

    const fresh: number[] = [];
    for (let i = 0; i < 21; i++) {
      const extra = join(root, `scope-${i}`);
      await Deno.mkdir(extra);
      const t0 = performance.now();
      const result = await pool.call("read_file", { path: "a.txt" }, {
        set: scope(workspace, [extra]),
        workspace,
      });
      if (!result.ok) throw new Error(`read_file failed: ${result.error.message}`);
      if (i > 0) fresh.push(performance.now() - t0);
    }
    out.push(line("read_file, new scope (fresh bwrap + deno child)", fresh, 30));
  } finally {
    await pool.close();
  }

  const shellSet = scope(workspace, [], true);
  const shellContext = { ...context, workspace };
  const onDemand: number[] = [];
  for (let i = 0; i < 31; i++) {
    const t0 = performance.now();
    const result = await runShell("true", {
      set: shellSet,
      context: shellContext,
      timeoutMs: 10_000,
    });
    if (!result.ok) throw new Error(`shell failed: ${result.error.message}`);
    if (i > 0) onDemand.push(performance.now() - t0);
  }
  out.push(line("shell, fresh sandbox started on demand", onDemand, 10));

  const standby = new SandboxStandby();
  const spared: number[] = [];
  try {
    for (let i = 0; i < 31; i++) {
      standby.prepare();
      await sleep(60); // the model thinking: the spare finishes its setup meanwhile
      const t0 = performance.now();
      const result = await runShell("true", {
        set: shellSet,
        context: shellContext,
        timeoutMs: 10_000,
        standby,
      });
      if (!result.ok) throw new Error(`shell failed: ${result.error.message}`);
      if (i > 0) spared.push(performance.now() - t0);
    }
  } finally {
    await standby.close();
  }
  out.push(line("shell, fresh sandbox from a spare (as runs do)", spared, 10));
  await Deno.remove(root, { recursive: true });
  for (const text of out) console.log(text);
  return out;
}

if (import.meta.main) await sandboxBench();
