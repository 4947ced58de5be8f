/**
 * A runtime for tests (test helper): a private HOME, ODEK_HOME and workspaces under one
 * `/var/tmp` directory, the repository's `tools/`, and scripted models handed out one per
 * session host.
 *
 * @module
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ConfigLayer } from "../../src/config/odek_config.ts";
import { createRuntime, type RuntimeOptions } from "../../src/runtime/create_runtime.ts";
import type { Runtime } from "../../src/runtime/runtime.ts";
import { ScriptedModel, type ScriptedModelTurns } from "../../src/testing/scripted_model.ts";

/** The repository root (its `tools/` run the file-tool children). */
export const REPO_ROOT: string = fileURLToPath(new URL("../../", import.meta.url));

/** A throw-away layout and its runtime. Dispose it to close the runtime and delete everything. */
export interface RuntimeFixture extends AsyncDisposable {
  root: string;
  home: string;
  /** The runtime's temporary directory (egress proxy sockets). */
  tmp: string;
  odekHome: string;
  runtime: Runtime;
  /** The scripted model of each host, in the order the hosts were opened. */
  models: ScriptedModel[];
  /** The egress proxies whose socket directories still exist (each host's broker has one). */
  egressDirs(): Promise<string[]>;
  /** A new workspace directory (real path) under the fixture. */
  workspace(name: string): Promise<string>;
}

/** What a fixture is made with. */
export interface RuntimeFixtureOptions {
  /** One script per session host, in the order they open. */
  scripts: ScriptedModelTurns[];
  /** @default "none" */
  sandbox?: "bwrap" | "none";
  /** More configuration. */
  config?: ConfigLayer;
  /** More runtime options (a store, a clock). */
  runtime?: Partial<RuntimeOptions>;
  /** Variables to set or replace in the runtime's environment. */
  env?: Record<string, string>;
  /** Files written under ODEK_HOME before the runtime starts (`config.jsonc`, `secrets.env`), with their mode. */
  odekHomeFiles?: Record<string, { text: string; mode?: number }>;
}

/** This process's deno cache (the children find their npm packages there under the fake HOME). */
function denoDir(): string {
  const xdg = Deno.env.get("XDG_CACHE_HOME");
  return Deno.env.get("DENO_DIR") ??
    (xdg ? join(xdg, "deno") : join(Deno.env.get("HOME") ?? "/root", ".cache", "deno"));
}

/**
 * Build the layout and a runtime on it whose model factory hands out the scripts in order.
 *
 * @returns the fixture
 */
export async function runtimeFixture(options: RuntimeFixtureOptions): Promise<RuntimeFixture> {
  const root = await Deno.realPath(
    await Deno.makeTempDir({ dir: "/var/tmp", prefix: "odek-runtime-" }),
  );
  const home = join(root, "home");
  const odekHome = join(home, ".odek");
  const tmp = join(root, "tmp");
  await Deno.mkdir(odekHome, { recursive: true });
  await Deno.mkdir(tmp);
  for (const [name, file] of Object.entries(options.odekHomeFiles ?? {})) {
    const path = join(odekHome, name);
    await Deno.writeTextFile(path, file.text);
    await Deno.chmod(path, file.mode ?? 0o600);
  }
  const scripts = [...options.scripts];
  const models: ScriptedModel[] = [];
  const runtime = await createRuntime({
    env: {
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
      HOME: home,
      ODEK_HOME: odekHome,
      DENO_DIR: denoDir(),
      ...options.env,
    },
    installDir: REPO_ROOT.replace(/\/$/, ""),
    tmpDir: tmp,
    config: { sandbox: options.sandbox ?? "none", ...options.config },
    modelFactory: () => {
      const script = scripts.shift();
      if (script === undefined) throw new Error("the test opened more hosts than it scripted");
      const model = new ScriptedModel(script);
      models.push(model);
      return model;
    },
    ...options.runtime,
  });
  return {
    root,
    home,
    tmp,
    odekHome,
    runtime,
    models,
    async egressDirs() {
      const out: string[] = [];
      for await (const entry of Deno.readDir(tmp)) {
        if (entry.name.startsWith("odek-egress-")) out.push(entry.name);
      }
      return out;
    },
    async workspace(name: string) {
      const path = join(root, name);
      await Deno.mkdir(path);
      return path;
    },
    async [Symbol.asyncDispose]() {
      try {
        await runtime.close();
      } finally {
        await Deno.remove(root, { recursive: true });
      }
    },
  };
}
