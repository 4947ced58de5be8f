/**
 * The installed command's start (`deno task bench`): `deno task install` into a temporary prefix,
 * then the median of 10 runs (after one warm-up) of `odek --version` through the launcher, next
 * to an empty `deno run` (a file with nothing in it) with the same binary, and their ratio (target
 * ≤ 1.2×, issue 23), and `deno run … main.ts --version` for reference.
 *
 * @module
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { install } from "../scripts/install.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url)).replace(/\/$/, "");

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

async function time(command: string, args: string[]): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < 11; i++) {
    const t0 = performance.now();
    const out = await new Deno.Command(command, { args, stdout: "null", stderr: "piped" }).output();
    const ms = performance.now() - t0;
    if (!out.success) throw new Error(`${command} failed: ${new TextDecoder().decode(out.stderr)}`);
    if (i > 0) times.push(ms);
  }
  return times;
}

const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "odek-launcher-bench-" }));
try {
  const { launcher, deno } = await install(ROOT, join(dir, "bin"));
  const empty = join(dir, "empty.ts");
  await Deno.writeTextFile(empty, "");
  const installed = median(await time(launcher, ["--version"]));
  const bare = median(await time(deno, ["run", empty]));
  const direct = median(
    await time(deno, [
      "run",
      "--no-prompt",
      "--allow-read",
      "--allow-write",
      "--allow-env",
      "--allow-net",
      "--allow-run",
      "--allow-sys=uid,gid,networkInterfaces",
      join(ROOT, "main.ts"),
      "--version",
    ]),
  );
  const fmt = (ms: number) => `${ms.toFixed(1)} ms`;
  console.log(
    `installed odek --version (median of 10): ${fmt(installed)} · empty deno run: ${
      fmt(bare)
    } · ratio ${(installed / bare).toFixed(2)}× ${
      installed / bare <= 1.2 ? "meets" : "MISSES"
    } target ≤ 1.2× · deno run main.ts --version: ${fmt(direct)}`,
  );
} finally {
  await Deno.remove(dir, { recursive: true });
}
