/**
 * Build the installed command's bundle of odek's core: `deno bundle --platform deno
 * --code-splitting` (esbuild, which deno fetches from the npm registry once) of
 * `src/cli/run_bundle.ts` and of every lazy module (`src/_util/lazy_module.ts`), each an entry
 * point of the one build (so code they share sits in shared chunks, once), then the entry
 * `src/bundle_main.ts` on its own in one file (it answers `--version` without a chunk and loads
 * `cli/run_bundle.js` for the rest), into a new folder `bundle-<id>` beside the installed deno,
 * with the stamp (`src/_util/bundle_stamp.ts`) of every checkout file that went into it.
 * `scripts/install.ts` runs this; on any failure it installs a launcher of the sources instead.
 *
 * @module
 */
import { join } from "node:path";
import { BUNDLE_STAMP_FILE, type BundleStamp, statInputs } from "../src/_util/bundle_stamp.ts";
import { LAZY_MODULES } from "../src/_util/lazy_module.ts";

/** The bundle's entry, relative to the checkout; the output's entry is `bundle_main.js`. */
export const BUNDLE_ENTRY = "src/bundle_main.ts";

/** What the entry loads for every command but `--version`: the split build's first entry point. */
const BUNDLE_RUN = "src/cli/run_bundle.ts";

/**
 * Packages left out of the bundle and imported at run time through the checkout's import map
 * (so each must be a key of deno.json's `imports`): `marked-terminal` (the chat renderer; its
 * `node-emoji` requires JSON files without their extension, which the bundler cannot resolve),
 * `@dbos-inc/dbos-sdk` and `pg` (`odek worker` only; the SDK requires optional packages that are
 * not installed).
 */
export const BUNDLE_EXTERNAL = ["marked-terminal", "@dbos-inc/dbos-sdk", "pg"];

/** What a build made. */
export interface BuiltBundle {
  /** The new bundle folder (absolute). */
  dir: string;
  /** Its entry, `<dir>/bundle_main.js`. */
  entry: string;
  /** How many checkout files went into it (the stamp's entries). */
  inputs: number;
  /** The bundle's size on disk, in bytes. */
  bytes: number;
}

async function run(deno: string, args: string[], root: string): Promise<string> {
  const out = await new Deno.Command(deno, {
    args,
    cwd: root,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
    signal: AbortSignal.timeout(300_000),
  }).output();
  if (!out.success) {
    const said = new TextDecoder().decode(out.stderr).split("\n").map((line) => line.trim())
      .filter((line) => line !== "").slice(0, 3).join(" ");
    throw new Error(`deno ${args[0]} failed (exit code ${out.code}): ${said}`);
  }
  return new TextDecoder().decode(out.stdout);
}

/**
 * The checkout files a bundle is made of, as a superset: deno.json, deno.lock (the packages' exact
 * versions) and every `.ts` file under `src/` and `tools/_catalogue/` (the only folder outside
 * `src/` the core may import: tests/arch/layering_test.ts).
 */
export function bundleInputs(root: string): string[] {
  const files = ["deno.json", "deno.lock"];
  const walk = (dir: string) => {
    for (const entry of Deno.readDirSync(join(root, dir))) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory && entry.name !== "node_modules") walk(path);
      else if (entry.isFile && entry.name.endsWith(".ts")) files.push(path);
    }
  };
  walk("src");
  walk("tools/_catalogue");
  return files.sort();
}

/**
 * Bundle the core of the checkout `root` into a new folder under `parent`.
 *
 * @param root the odek checkout (absolute)
 * @param parent the folder the bundle folder goes into (created when missing)
 * @param deno the deno binary to bundle with (default: the running one)
 * @returns the bundle's folder and entry
 * @throws {Error} when `deno bundle` fails (offline with no esbuild cached, a
 *   syntax error) or a source changed while it was bundled; nothing is left behind
 */
export async function buildBundle(
  root: string,
  parent: string,
  deno: string = Deno.execPath(),
): Promise<BuiltBundle> {
  const files = bundleInputs(root);
  const before = statInputs(root, files);
  Deno.mkdirSync(parent, { recursive: true, mode: 0o755 });
  const temp = join(parent, `.bundle-${crypto.randomUUID()}`);
  try {
    await run(deno, [
      "bundle",
      "--quiet",
      "--platform",
      "deno",
      "--code-splitting",
      "--config",
      join(root, "deno.json"),
      ...BUNDLE_EXTERNAL.flatMap((name) => ["--external", name]),
      "--outdir",
      temp,
      BUNDLE_RUN,
      ...LAZY_MODULES.map((name) => `src/${name}`),
    ], root);
    // The entry on its own, in one file: `odek --version` then loads no chunk.
    await run(deno, [
      "bundle",
      "--quiet",
      "--platform",
      "deno",
      "--config",
      join(root, "deno.json"),
      "--output",
      join(temp, "bundle_main.js"),
      BUNDLE_ENTRY,
    ], root);
    for (const name of ["cli/run_bundle.ts", ...LAZY_MODULES]) {
      const output = join(temp, name.replace(/\.ts$/, ".js"));
      if (!Deno.statSync(output).isFile) throw new Error(`the bundle has no ${output}`);
    }
    const after = statInputs(root, files);
    const changed = files.find((file) =>
      JSON.stringify(before[file]) !== JSON.stringify(after[file])
    );
    if (changed !== undefined) throw new Error(`${changed} changed while it was bundled`);
    const stamp: BundleStamp = {
      root,
      deno: Deno.version.deno,
      files: before as Record<string, [number, number]>,
    };
    Deno.writeTextFileSync(join(temp, BUNDLE_STAMP_FILE), `${JSON.stringify(stamp)}\n`);
    let bytes = 0;
    const count = (dir: string) => {
      for (const entry of Deno.readDirSync(dir)) {
        const path = join(dir, entry.name);
        if (entry.isDirectory) count(path);
        else bytes += Deno.statSync(path).size;
      }
    };
    count(temp);
    const dir = join(
      parent,
      `bundle-${Date.now().toString(36)}-${crypto.randomUUID().slice(0, 8)}`,
    );
    Deno.renameSync(temp, dir);
    return { dir, entry: join(dir, "bundle_main.js"), inputs: files.length, bytes };
  } catch (error) {
    try {
      Deno.removeSync(temp, { recursive: true });
    } catch {
      // nothing was written
    }
    throw error;
  }
}
