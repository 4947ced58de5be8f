/**
 * Test helpers for everything that needs bubblewrap: {@linkcode sandboxTest} registers a test
 * that is skipped (with one note on stderr) where bwrap is missing, and
 * {@linkcode makeSandboxFixture} builds a throw-away odek layout around a workspace.
 *
 * @module
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { BWRAP_INSTALL_COMMAND, findBwrap } from "../../src/broker/find_bwrap.ts";
import type { SandboxContext } from "../../src/broker/render_sandbox.ts";
import { sandboxContextFromEnvironment } from "../../src/broker/sandbox_context.ts";

/** The working bwrap of this machine, or `null` (looked up once, when this module loads). */
export const bwrap: string | null = await findBwrap();

if (bwrap === null) {
  console.error(
    `skipping sandbox tests: bwrap is not installed (install it with: ${BWRAP_INSTALL_COMMAND})`,
  );
}

/** The repository's `tools/` directory (the file-tool child and its import map). */
export const REPO_TOOLS_DIR: string = fileURLToPath(new URL("../../tools", import.meta.url));

/**
 * Register a `Deno.test` that needs bwrap; it is reported as ignored where bwrap is missing.
 *
 * @param name the test name, `fnName() does X`
 * @param fn the test body
 */
export function sandboxTest(name: string, fn: (t: Deno.TestContext) => void | Promise<void>): void {
  Deno.test({ name, ignore: bwrap === null, fn });
}

/** A throw-away odek layout. Dispose it (`await using`) to delete everything. */
export interface SandboxFixture extends AsyncDisposable {
  /** The workspace (realpath), under `/var/tmp` so only the sandbox's own rules hide things. */
  workspace: string;
  /** A fake ODEK_HOME holding `secret.txt`; a protected root. */
  odekHome: string;
  /** A fake install dir holding `data/sentinel`; a protected root. */
  installDir: string;
  /**
   * A directory under `/tmp` holding `secret.txt`: hidden in tool children (their `/tmp` is a
   * private tmpfs), visible read-only to programs (which see the host's `/tmp`).
   */
  outside: string;
  /** A full context for this layout, mode `bwrap`, tools from the repository. */
  context: SandboxContext;
}

/**
 * Create a workspace, an ODEK_HOME and an install dir under one `/var/tmp` directory, and an
 * outside directory under `/tmp`, and the matching sandbox context (real home, real deno).
 *
 * @param options `mode` of the context (default `bwrap`)
 * @returns the fixture
 */
export async function makeSandboxFixture(
  options: { mode?: "bwrap" | "docker" | "none" } = {},
): Promise<SandboxFixture> {
  const root = await Deno.realPath(
    await Deno.makeTempDir({ dir: "/var/tmp", prefix: "odek-test-" }),
  );
  const outside = await Deno.realPath(await Deno.makeTempDir({ prefix: "odek-outside-" }));
  const workspace = join(root, "workspace");
  const odekHome = join(root, "odek_home");
  const installDir = join(root, "install");
  await Deno.mkdir(workspace);
  await Deno.mkdir(odekHome);
  await Deno.mkdir(join(installDir, "data"), { recursive: true });
  await Deno.writeTextFile(join(odekHome, "secret.txt"), "odek-home-secret\n");
  await Deno.writeTextFile(join(installDir, "data", "sentinel"), "install-sentinel\n");
  await Deno.writeTextFile(join(outside, "secret.txt"), "outside-secret\n");
  const base = await sandboxContextFromEnvironment({
    odekHome,
    installDir,
    mode: options.mode ?? "bwrap",
  });
  return {
    workspace,
    odekHome,
    installDir,
    outside,
    context: { ...base, toolsDir: REPO_TOOLS_DIR, workspace },
    async [Symbol.asyncDispose]() {
      await Deno.remove(root, { recursive: true });
      await Deno.remove(outside, { recursive: true });
    },
  };
}
