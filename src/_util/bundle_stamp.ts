/**
 * The stamp beside the installed command's bundle (`odek_bundle.json`): the checkout it was built
 * from, the deno that built it, and each source file that went into it with its modification time
 * and size. The bundle's entry checks it at every start (a `stat` per file: ~460 files, 3–8 ms)
 * and runs the sources instead when anything differs, so a `git pull` or an edit never leaves old code running
 * against new tool children. `scripts/build_bundle.ts` writes it.
 *
 * @module
 */
/** The stamp's file name, in the bundle's folder. */
export const BUNDLE_STAMP_FILE = "odek_bundle.json";

/**
 * The static graph of the bundle's entry (`src/bundle_main.ts`): all that `odek --version` runs, so
 * all that its check compares (`tests/arch/lazy_modules_test.ts` checks the list with `deno info`).
 */
export const BUNDLE_ENTRY_GRAPH: readonly string[] = [
  "src/_util/bundle_stamp.ts",
  "src/_util/core_origin.ts",
  "src/bundle_main.ts",
  "src/cli/version.ts",
  "src/cli/version_line.ts",
  "src/runtime/child_deno_path.ts",
];

/** What the stamp holds. */
export interface BundleStamp {
  /** The checkout the bundle was built from (absolute). */
  root: string;
  /** The deno version that built it (`Deno.version.deno`). */
  deno: string;
  /** Each input, relative to `root`, with `[mtime in ms, size in bytes]` when it was bundled. */
  files: Record<string, [number, number]>;
}

/**
 * The `[mtime, size]` of each file under `root` (`null` for a missing one).
 *
 * @param root an absolute directory
 * @param files paths relative to `root`
 */
export function statInputs(
  root: string,
  files: readonly string[],
): Record<string, [number, number] | null> {
  const out: Record<string, [number, number] | null> = {};
  for (const file of files) {
    try {
      const info = Deno.statSync(`${root}/${file}`);
      out[file] = [info.mtime?.getTime() ?? 0, info.size];
    } catch {
      out[file] = null;
    }
  }
  return out;
}

/**
 * Read and shape-check a stamp.
 *
 * @param path the stamp file
 * @throws {Error} when it is missing or not a stamp
 */
export function readBundleStamp(path: string | URL): BundleStamp {
  const value = JSON.parse(Deno.readTextFileSync(path));
  if (
    typeof value?.root !== "string" || typeof value.deno !== "string" ||
    typeof value.files !== "object" || value.files === null
  ) {
    throw new Error(`${path} is not an odek bundle stamp`);
  }
  return value as BundleStamp;
}

/**
 * Why the bundle must not run, or `undefined` when every input is as it was bundled.
 *
 * @param stamp the bundle's stamp
 * @param files the inputs to compare (default: all of the stamp's); one missing from the stamp
 *   counts as changed
 * @returns a short reason ("src/cli/run_command.ts changed since the bundle was built")
 *
 * @example A stamp of a file that has changed since
 * ```ts
 * import { staleBundleReason } from "./bundle_stamp.ts";
 * const root = Deno.makeTempDirSync();
 * Deno.writeTextFileSync(`${root}/a.ts`, "export const a = 1;\n");
 * const stamp = { root, deno: Deno.version.deno, files: { "a.ts": [0, 20] as [number, number] } };
 * if (staleBundleReason(stamp) !== "a.ts changed since the bundle was built") throw new Error();
 * Deno.removeSync(root, { recursive: true });
 * ```
 */
export function staleBundleReason(
  stamp: BundleStamp,
  files: Iterable<string> = Object.keys(stamp.files),
): string | undefined {
  if (stamp.deno !== Deno.version.deno) {
    return `it was built by deno ${stamp.deno}, this is deno ${Deno.version.deno}`;
  }
  // One statSync per file and nothing else: this runs before every start of the installed odek.
  const prefix = `${stamp.root}/`;
  for (const file of files) {
    const was = stamp.files[file];
    if (was === undefined) return `${file} is not in the bundle's stamp`;
    let info: Deno.FileInfo;
    try {
      info = Deno.statSync(prefix + file);
    } catch {
      return `${file} is gone from ${stamp.root}`;
    }
    const [mtime, size] = was;
    if (info.size !== size || (info.mtime?.getTime() ?? 0) !== mtime) {
      return `${file} changed since the bundle was built`;
    }
  }
  return undefined;
}
