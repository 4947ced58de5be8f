/**
 * What `main.ts` (from source) and the installed command's bundle (`src/bundle_main.ts`) both run.
 * `odek --version` answers from here without loading the CLI, so it stays fast; everything else
 * is loaded on demand (`src/_util/lazy_module.ts`).
 *
 * @module
 */
import { checkoutRoot } from "../_util/checkout_root.ts";
import { lazyModule } from "../_util/lazy_module.ts";
import { versionLine } from "./version_line.ts";

/**
 * Run odek with the command line `args` and exit the process with its exit code.
 *
 * @param args the arguments after the program name (`Deno.args`)
 * @returns never: the process exits (code 1 with a two-line message when odek's modules cannot
 *   load, e.g. a package missing under `--cached-only` after a `git pull`)
 *
 * @example In a child process, the version line
 * ```ts ignore
 * import { odekEntry } from "./odek_entry.ts";
 * await odekEntry(["--version"]); // prints "odek 0.1.0 (deno …)" and exits 0
 * ```
 */
export async function odekEntry(args: string[]): Promise<never> {
  const installDir = checkoutRoot();
  if (args.length === 1 && (args[0] === "--version" || args[0] === "-V")) {
    console.log(
      versionLine(
        { ODEK_DENO: Deno.env.get("ODEK_DENO"), PATH: Deno.env.get("PATH") },
        Deno.execPath(),
      ),
    );
    Deno.exit(0);
  }
  // ODEK_PROFILE_STARTUP=1: print the start-up marks (docs/performance.md) on stderr at exit.
  if (Deno.env.get("ODEK_PROFILE_STARTUP") === "1") {
    globalThis.addEventListener("unload", () => {
      const marks = performance.getEntriesByType("mark").filter((m) => m.name.startsWith("odek:"));
      const mb = (bytes: number) => `${(bytes / 1048576).toFixed(1)} MB`;
      const { rss, heapTotal, heapUsed, external } = Deno.memoryUsage();
      console.error(
        [
          ...marks.map((m) => `${m.name} ${m.startTime.toFixed(1)} ms`),
          `odek:memory rss ${mb(rss)} heap ${mb(heapUsed)} of ${mb(heapTotal)} external ${
            mb(external)
          }`,
        ].join("\n"),
      );
    });
  }
  // ODEK_PROFILE_STEPS=1: print each step phase's median (docs/performance.md) on stderr at exit.
  if (Deno.env.get("ODEK_PROFILE_STEPS") === "1") {
    const { stepPhaseSummary }: typeof import("../_util/step_phase.ts") = await lazyModule(
      "_util/step_phase.ts",
    );
    globalThis.addEventListener("unload", () => console.error(stepPhaseSummary().join("\n")));
  }
  let modules: [typeof import("./main.ts"), typeof import("./cli_io.ts")];
  try {
    modules = await Promise.all([lazyModule("cli/main.ts"), lazyModule("cli/cli_io.ts")]);
  } catch (error) {
    // An installed odek runs with --cached-only: a lock file changed since the install (a git
    // pull) leaves packages it cannot fetch. Say what to do rather than print a stack.
    console.error(
      `odek: cannot load odek's modules from ${installDir}: ${
        (error as Error).message.split("\n")[0]
      }\nodek: if the checkout changed since odek was installed, run deno task install there again (or deno task setup).`,
    );
    Deno.exit(1);
  }
  performance.mark("odek:cli-loaded");
  const [{ main }, { processCliIO }] = modules;
  Deno.exit(await main(args, processCliIO(installDir)));
}
