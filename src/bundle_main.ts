/**
 * The entry of the installed command's bundle (`scripts/build_bundle.ts` builds it on its own, in
 * one file, and runs `deno bundle --platform deno --code-splitting` on `src/cli/run_bundle.ts` and
 * on every lazy module; it is never run from source). It checks the bundle's stamp
 * (`src/_util/bundle_stamp.ts`) and answers `odek --version` itself, loading nothing else (each
 * chunk a module imports costs a start-up its size does not explain). Any other command loads
 * `cli/run_bundle.js` of the split build, which gives the registry of lazy modules
 * (`src/_util/lazy_module.ts`) the loader of their outputs (one build, so they share one copy of
 * every class) and the checkout root the bundle was built from, then runs odek as `main.ts` does.
 * When a source file changed since the bundle was built, it says so in one line and runs the
 * checkout's sources.
 *
 * @module
 */
import {
  BUNDLE_ENTRY_GRAPH,
  BUNDLE_STAMP_FILE,
  readBundleStamp,
  staleBundleReason,
} from "./_util/bundle_stamp.ts";
import { recordCoreOrigin } from "./_util/core_origin.ts";
import type { LazyModuleName } from "./_util/lazy_module.ts";
import { versionLine } from "./cli/version_line.ts";

/**
 * A module's output in this bundle's split build: each is an entry point of the build, at its
 * path under `src/` with `.js` for `.ts`. Computed, as from source: Deno pre-loads the graph of a
 * literal.
 */
function loadBundled(name: LazyModuleName | "cli/run_bundle.ts"): Promise<unknown> {
  return import(new URL(`./${name.replace(/\.ts$/, ".js")}`, import.meta.url).href);
}

/** A path's `file:` URL (not node:url's: no Node layer before the CLI loads). */
function fileUrl(path: string): string {
  return `file://${encodeURI(path).replace(/[?#]/g, encodeURIComponent)}`;
}

// The bundle's folder, this chunk's (the one path taken from a module's URL here).
const bundleDir = decodeURIComponent(new URL(".", import.meta.url).pathname).replace(/\/$/, "");
let stamp;
try {
  stamp = readBundleStamp(`${bundleDir}/${BUNDLE_STAMP_FILE}`);
} catch (error) {
  console.error(
    `odek: this bundle has no readable stamp (${
      (error as Error).message
    }): run deno task install in the odek checkout again`,
  );
  Deno.exit(1);
}
// `odek --version` runs only this entry's static graph, so only its files are compared for it
// (saving ~5 ms of stats on the command that is all start-up); every other command compares all.
const versionOnly = Deno.args.length === 1 && ["--version", "-V"].includes(Deno.args[0]);
const stale = staleBundleReason(stamp, versionOnly ? BUNDLE_ENTRY_GRAPH : undefined);
recordCoreOrigin(
  stale === undefined
    ? { runs: "bundle", bundle: bundleDir }
    : { runs: "sources", bundle: bundleDir, stale },
);
if (stale !== undefined) {
  console.error(
    `odek: not running the installed bundle (${stale}): running the sources of ${stamp.root} (a slower start); run deno task install there to rebuild it`,
  );
  // The checkout's own entry, with its own module graph: nothing of this bundle runs after this.
  const source: typeof import("./cli/odek_entry.ts") = await import(
    fileUrl(`${stamp.root}/src/cli/odek_entry.ts`)
  );
  await source.odekEntry(Deno.args);
}
if (versionOnly) {
  console.log(
    versionLine(
      { ODEK_DENO: Deno.env.get("ODEK_DENO"), PATH: Deno.env.get("PATH") },
      Deno.execPath(),
    ),
  );
  Deno.exit(0);
}
const { runBundle } = await loadBundled(
  "cli/run_bundle.ts",
) as typeof import("./cli/run_bundle.ts");
await runBundle({ root: stamp.root, load: loadBundled, args: Deno.args });
