/**
 * `deno task install [--prefix <dir>]`: install an `odek` command. Setup runs (once), the deno
 * binary running this script (the pinned version) is hard-linked — or copied, across file
 * systems — to `<prefix>/odek-deno-<version>/deno` (never left pointing into npm's npx cache,
 * which npm prunes), and `<prefix>/odek` is written: a POSIX shell launcher that `exec`s that deno
 * with the `odek` task's flags, `--config` of this checkout and `--cached-only`. So an installed
 * `odek` starts with no npx, no `deno install` and no registry access, works offline, and
 * signals reach odek itself (the shell is replaced). Default prefix: `~/.local/bin`.
 *
 * The launcher runs a bundle of the core (`scripts/build_bundle.ts`, in `odek-deno-<version>/`
 * beside the deno), which loads in about a third of the time of the source modules; the bundle checks
 * at every start that no source changed since it was built and otherwise runs the sources with a
 * one-line notice. When bundling fails (offline before esbuild was ever fetched, say) or with
 * `--no-bundle`, the launcher runs `main.ts` of the checkout, and the install says why once.
 *
 * @module
 */
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { PINNED_DENO_VERSION } from "../src/runtime/child_deno_path.ts";
import { ODEK_VERSION } from "../src/cli/version.ts";
import { buildBundle } from "./build_bundle.ts";
import { ensureSetup } from "./ensure_setup.ts";

/** What an install made. */
export interface Installed {
  launcher: string;
  deno: string;
  /** How the deno binary got there. */
  how: "hard-linked" | "copied";
  /** The bundle the launcher runs, or `null` when it runs the sources (see `bundleError`). */
  bundle: string | null;
  /** Why there is no bundle: bundling failed, or `"--no-bundle"`. */
  bundleError?: string;
}

/** How many bundle folders an install keeps: the new one and the one before it (an odek started
 * from it may still load a chunk). */
const KEEP_BUNDLES = 2;

/** The `odek` task's `deno run` flags, as deno.json writes them (the one place they live). */
export function odekTaskFlags(root: string): string[] {
  const config = JSON.parse(Deno.readTextFileSync(join(root, "deno.json")));
  const task = config.tasks?.odek;
  const command: string = typeof task === "string" ? task : task?.command;
  // The last command of the task runs odek (the ones before it run setup when it is due).
  const words = command.split("&&").at(-1)!.trim().split(/\s+/);
  if (words[0] !== "deno" || words[1] !== "run" || words.at(-1) !== "main.ts") {
    throw new Error(`the odek task is not "deno run <flags> main.ts": ${command}`);
  }
  return words.slice(2, -1);
}

/** `'text'` for a POSIX shell. */
function quote(text: string): string {
  if (/[\n\r\0]/.test(text)) {
    throw new Error(
      `a path with a line break cannot go into the launcher: ${JSON.stringify(text)}`,
    );
  }
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/**
 * The flags that make an installed odek start offline from what setup installed: this checkout's
 * config, `--cached-only`, and its packages read from `node_modules` as `deno task setup` put them
 * there against the lock (`--node-modules-dir=manual --no-lock`: no lock re-check at every start,
 * ~1 ms; a version the import map pins that `node_modules` lacks, after a `git pull` without setup,
 * still fails at once with Deno's "Could not find a matching package").
 */
function installedFlags(root: string): string[] {
  return [
    "--config",
    join(root, "deno.json"),
    "--cached-only",
    "--node-modules-dir=manual",
    "--no-lock",
  ];
}

/**
 * The launcher's text.
 *
 * @param root the checkout
 * @param launcher where the launcher goes
 * @param deno the installed deno
 * @param bundle the bundle's entry (`<bundle>/bundle_main.js`), or `undefined` to run `main.ts`
 */
export function launcherScript(
  root: string,
  launcher: string,
  deno: string,
  bundle?: string,
): string {
  const args = [
    "run",
    ...installedFlags(root),
    ...odekTaskFlags(root),
    bundle ?? join(root, "main.ts"),
  ];
  return [
    "#!/bin/sh",
    `# The odek launcher, written by "deno task install" (odek ${ODEK_VERSION}, deno ${PINNED_DENO_VERSION}).`,
    "# It runs odek with the deno installed beside it: no npx, no deno install, no registry access.",
    bundle === undefined
      ? "# It runs the checkout's sources (main.ts)."
      : "# It runs the bundle of odek's core; the bundle runs the sources when they changed since.",
    "# exec replaces this shell, so SIGINT and SIGTERM reach odek itself.",
    "unset INIT_CWD",
    `ODEK_LAUNCHER=${quote(launcher)}`,
    "DENO_NO_UPDATE_CHECK=1",
    "export ODEK_LAUNCHER DENO_NO_UPDATE_CHECK",
    `exec ${[deno, ...args].map(quote).join(" ")} "$@"`,
    "",
  ].join("\n");
}

/**
 * Install into `prefix`.
 *
 * @param root the odek checkout
 * @param prefix the directory the `odek` command goes into (created when missing)
 * @param options `bundle: false` installs a launcher of the sources without trying to bundle
 * @returns the launcher's and the binary's paths, and the bundle's (or why there is none)
 * @throws {Error} under another deno than the pinned one, or when setup fails (a failed bundle
 *   is not an error: the launcher then runs the sources)
 */
export async function install(
  root: string,
  prefix: string,
  options: { bundle?: boolean } = {},
): Promise<Installed> {
  if (Deno.version.deno !== PINNED_DENO_VERSION) {
    throw new Error(
      `this is deno ${Deno.version.deno}, but odek is pinned to ${PINNED_DENO_VERSION}: run npx -y deno@${PINNED_DENO_VERSION} task install`,
    );
  }
  await ensureSetup(root);
  Deno.mkdirSync(prefix, { recursive: true, mode: 0o755 });
  const dir = join(prefix, `odek-deno-${PINNED_DENO_VERSION}`);
  Deno.mkdirSync(dir, { recursive: true, mode: 0o755 });
  const deno = join(dir, "deno");
  const source = Deno.realPathSync(Deno.execPath());
  const temp = join(dir, `.deno-${crypto.randomUUID()}`);
  let how: Installed["how"] = "hard-linked";
  if (source !== deno) {
    try {
      Deno.linkSync(source, temp);
    } catch {
      how = "copied"; // another file system (or links not allowed): a copy of our own
      Deno.copyFileSync(source, temp);
    }
    Deno.chmodSync(temp, 0o755);
    Deno.renameSync(temp, deno);
  }
  const check = await new Deno.Command(deno, { args: ["--version"], stdout: "piped" }).output();
  const version = new TextDecoder().decode(check.stdout).split("\n")[0];
  if (!check.success || !version.includes(PINNED_DENO_VERSION)) {
    throw new Error(
      `the installed deno at ${deno} does not run as deno ${PINNED_DENO_VERSION}: ${version}`,
    );
  }
  const launcher = join(prefix, "odek");
  let bundle: string | null = null;
  let bundleError: string | undefined = options.bundle === false ? "--no-bundle" : undefined;
  if (bundleError === undefined) {
    try {
      const built = await buildBundle(root, dir, deno);
      await checkBundle(root, deno, built.entry);
      bundle = built.entry;
    } catch (error) {
      bundleError = (error as Error).message;
    }
  }
  const script = join(prefix, `.odek-${crypto.randomUUID()}`);
  Deno.writeTextFileSync(script, launcherScript(root, launcher, deno, bundle ?? undefined), {
    createNew: true,
    mode: 0o755,
  });
  Deno.chmodSync(script, 0o755);
  Deno.renameSync(script, launcher);
  pruneBundles(dir);
  return { launcher, deno, how, bundle, ...(bundleError !== undefined ? { bundleError } : {}) };
}

/**
 * Run the new bundle as the launcher would: `--version` must answer from it, and `run --help`
 * loads (and so fills Deno's code cache for) the run command's whole graph.
 */
async function checkBundle(root: string, deno: string, entry: string): Promise<void> {
  const checks: [string[], string][] = [
    [["--version"], `odek ${ODEK_VERSION} `],
    [["run", "--help"], ""],
  ];
  for (const [args, expect] of checks) {
    const out = await new Deno.Command(deno, {
      args: [
        "run",
        ...installedFlags(root),
        ...odekTaskFlags(root),
        entry,
        ...args,
      ],
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
      env: { DENO_NO_UPDATE_CHECK: "1" },
    }).output();
    const said = new TextDecoder().decode(out.stdout);
    const err = new TextDecoder().decode(out.stderr);
    if (!out.success || !said.startsWith(expect) || err !== "") {
      throw new Error(
        `the bundle does not run (odek ${args.join(" ")}): ${(err || said).trim().split("\n")[0]}`,
      );
    }
  }
}

/** Remove all but the newest {@linkcode KEEP_BUNDLES} bundle folders of `dir`. */
function pruneBundles(dir: string): void {
  const bundles = [...Deno.readDirSync(dir)]
    .filter((entry) => entry.isDirectory && entry.name.startsWith("bundle-"))
    .map((entry) => ({
      path: join(dir, entry.name),
      at: Deno.statSync(join(dir, entry.name)).mtime?.getTime() ?? 0,
    }))
    .sort((a, b) => b.at - a.at);
  for (const old of bundles.slice(KEEP_BUNDLES)) Deno.removeSync(old.path, { recursive: true });
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      prefix: { type: "string" },
      "no-bundle": { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    console.log(
      "Usage: deno task install [--prefix <dir>] [--no-bundle]\n\nInstalls the odek command into <dir> (default: ~/.local/bin). It runs a bundle of odek's core\n(a faster start); --no-bundle makes it run the checkout's sources.",
    );
    Deno.exit(0);
  }
  const home = Deno.env.get("HOME");
  const cwd = Deno.env.get("INIT_CWD") ?? Deno.cwd();
  const prefix = values.prefix !== undefined
    ? resolve(cwd, values.prefix)
    : home
    ? join(home, ".local", "bin")
    : undefined;
  if (prefix === undefined) {
    console.error("odek: HOME is not set: give the directory with --prefix <dir>");
    Deno.exit(2);
  }
  const root = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
  try {
    const done = await install(root, prefix, { bundle: !values["no-bundle"] });
    console.error(
      `odek: installed ${done.launcher} (deno ${PINNED_DENO_VERSION} ${done.how} to ${done.deno})`,
    );
    console.error(
      done.bundle !== null
        ? `odek: it runs a bundle of odek's core (${done.bundle})`
        : `odek: it runs the checkout's sources: no bundle (${done.bundleError})`,
    );
    const onPath = (Deno.env.get("PATH") ?? "").split(":").some((dir) => resolve(dir) === prefix);
    if (!onPath) {
      console.error(
        `odek: ${prefix} is not on your PATH: add it, e.g. export PATH="${prefix}:$PATH"`,
      );
    }
    console.error("odek: try it with: odek doctor");
  } catch (error) {
    console.error(`odek: install failed: ${(error as Error).message}`);
    Deno.exit(1);
  }
}
