import assert from "node:assert/strict";
import { join } from "node:path";
import { OdekError } from "../../src/_util/odek_error.ts";
import { HELP_TEXT } from "../../src/cli/help_text.ts";
import { parseRunFlags } from "../../src/cli/parse_run_flags.ts";
import { DEFAULT_CONFIG } from "../../src/config/odek_config.ts";
import { resolveConfig } from "../../src/config/resolve_config.ts";
import { ROOT } from "./_source_files.ts";

const read = (path: string) => Deno.readTextFile(join(ROOT, path));

async function docs(): Promise<string[]> {
  const out = ["README.md"];
  for await (const entry of Deno.readDir(join(ROOT, "docs"))) {
    if (entry.name.endsWith(".md")) out.push(`docs/${entry.name}`);
  }
  return out.sort();
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(join(ROOT, path));
    return true;
  } catch {
    return false;
  }
}

Deno.test("every file, folder and link the docs name exists", async () => {
  const missing: string[] = [];
  for (const doc of await docs()) {
    const text = await read(doc);
    const base = doc.startsWith("docs/") ? "docs/" : "";
    for (const m of text.matchAll(/\]\(([^)#\s]+)\)/g)) {
      if (/^https?:/.test(m[1])) continue;
      if (!(await exists(join(base, m[1])))) missing.push(`${doc}: link ${m[1]}`);
    }
    for (
      const m of text.matchAll(
        /`((?:src|tools|tests|docs|scripts|demo|bench|examples|\.ci)\/[A-Za-z0-9_./-]*)`/g,
      )
    ) {
      const path = m[1].replace(/\/$/, "");
      if (path.includes("*") || path.includes("<")) continue;
      if (!(await exists(path))) missing.push(`${doc}: ${m[1]}`);
    }
  }
  assert.deepEqual(missing, []);
});

Deno.test("docs/cli.md and the run help list only flags odek run accepts", async () => {
  const cli = await read("docs/cli.md");
  const documented = new Set(
    [...cli.matchAll(/\|\s*`(--[a-z-]+)/g), ...HELP_TEXT.run.matchAll(/^\s+(?:-h, )?(--[a-z-]+)/gm)]
      .map((m) => m[1]),
  );
  assert.ok(documented.size >= 9, `found only ${[...documented]}`);
  for (const flag of documented) {
    const needsValue = !["--json", "--help"].includes(flag);
    try {
      parseRunFlags(needsValue ? [flag, "1"] : [flag], "run");
    } catch (error) {
      assert.ok(
        !(error instanceof OdekError && /Unknown flag/.test(error.message)),
        `${flag}: ${error}`,
      );
    }
  }
  assert.throws(
    () => parseRunFlags(["--no-such-flag"], "run"),
    /Unknown flag --no-such-flag\. Run/,
  );
});

Deno.test("docs/configuration.md lists exactly the config keys, and its variables work", async () => {
  const text = await read("docs/configuration.md");
  const rows = [...text.matchAll(/^\|\s*`([a-zA-Z.]+)`\s*\|\s*`([^`]+)`\s*\|([^|]*)\|/gm)];
  const keys = rows.map((r) => r[1]).sort();
  const actual = Object.entries(DEFAULT_CONFIG).flatMap(([k, v]) =>
    typeof v === "object" && !Array.isArray(v) ? Object.keys(v).map((sub) => `${k}.${sub}`) : [k]
  ).sort();
  assert.deepEqual(keys, actual);
  for (const row of rows) {
    const defaultValue = row[2];
    const path = row[1].split(".");
    const actualDefault = path.reduce<unknown>(
      (node, key) => (node as Record<string, unknown>)[key],
      DEFAULT_CONFIG,
    );
    const shown = Array.isArray(actualDefault)
      ? JSON.stringify(actualDefault)
      : String(actualDefault);
    assert.equal(shown, defaultValue, `default of ${row[1]}`);
    for (const variable of row[3].matchAll(/`(ODEK_[A-Z_]+)`/g)) {
      const config = await resolveConfig({
        configFile: "/nonexistent/c.jsonc",
        env: { [variable[1]]: sample(row[1]) },
      });
      const value = path.reduce<unknown>(
        (node, key) => (node as Record<string, unknown>)[key],
        config,
      );
      assert.equal(String(value), sample(row[1]), `${variable[1]} does not set ${row[1]}`);
    }
  }
});

function sample(key: string): string {
  if (key === "baseUrl") return "http://127.0.0.1:9/v1";
  if (key === "sandbox") return "none";
  if (key === "trustLevel") return "untrusted";
  if (key === "model") return "m-1";
  if (key === "provider") return "groq";
  if (key === "context.compaction" || key === "checkpoints.enabled") return "false";
  if (key === "toolOutput.maxBytes") return "65536";
  if (key === "sandboxMaxProcesses") return "64";
  if (key === "queue.url") return "postgres://odek@127.0.0.1:5432/odek";
  return key === "contextWindow" ? "4096" : "7";
}

Deno.test("docs/security.md names only sandbox flags the renderer emits, and the current attempt count", async () => {
  const { renderSandbox } = await import("../../src/broker/render_sandbox.ts");
  const { ATTEMPTS } = await import("../containment/_attempts.ts");
  const text = await read("docs/security.md");
  const spans = [...text.matchAll(/`([^`]+)`/g)].map((m) => m[1]);
  const named = new Set(
    spans.flatMap((span) => [...span.matchAll(/--[a-z][a-z-]*/g)].map((m) => m[0])),
  );
  // Named as what odek never emits or does not use, or CLI flags (docs/cli.md).
  const elsewhere = new Set([
    "--allow-all",
    "--allow-ffi",
    "--bind-fd",
    "--unshare-user",
    "--yes",
    "--add-dir",
    "--allow-host-port",
    // git's own flags, in the commands that ask
    "--track",
    "--template",
    "--global",
  ]);
  const context = {
    mode: "bwrap" as const,
    bwrapPath: "/usr/bin/bwrap",
    denoPath: "/usr/bin/deno",
    denoDir: "/d",
    toolsDir: "/opt/odek/tools",
    workspace: "/srv/ws",
    home: "/home/u",
    odekHome: "/home/u/.odek",
    installDir: "/opt/odek",
    protectedRoots: ["/home/u/.odek", "/opt/odek"],
    readOnlyHomeFiles: [],
    pidsCgroup: "/sys/fs/cgroup/pids",
    seccompFile: "/tmp/f.bpf",
    netns: { enter: ["/usr/bin/nsenter", "--net=/proc/1/ns/net", "--"], ino: "4026531840" },
  };
  const set = {
    readPaths: ["/srv/ws"],
    writePaths: ["/srv/ws"],
    network: { type: "none" as const },
    runBinaries: ["/usr/bin/git"],
    envNames: [],
  };
  const emitted = new Set([
    ...renderSandbox(set, context, { kind: "tool_child", entry: "/opt/odek/tools/files.ts" }).argv,
    ...renderSandbox(set, context, { kind: "program", argv: ["true"] }).argv,
  ].map((arg) => arg.replace(/=.*$/, "")));
  const unknown = [...named].filter((flag) => !elsewhere.has(flag) && !emitted.has(flag));
  assert.deepEqual(unknown, []);
  assert.ok(named.has("--seccomp") && named.has("--cap-drop"), "the layers name their flags");
  const count = text.match(/`tests\/containment\/_attempts\.ts`, (\d+) today/);
  assert.equal(Number(count?.[1]), ATTEMPTS.length, "the attempt count in docs/security.md");
});

Deno.test("docs/architecture.md walks the loop's steps: exactly the next-step union of run_agent.ts", async () => {
  const source = await read("src/loop/run_agent.ts");
  const union = source.match(/type NextStep =\n((?:\s+\|[^\n]*\n)+)/)?.[1] ?? "";
  const steps = [...union.matchAll(/\{ type: "([a-z_]+)"/g)].map((m) => m[1]).sort();
  assert.ok(steps.length >= 4, `found the steps ${steps}`);
  const text = await read("docs/architecture.md");
  const loop = text.slice(text.indexOf("**The loop.**"), text.indexOf("**Inside the broker.**"));
  const walked = [...loop.matchAll(/^\s+- `([a-z_]+)`/gm)].map((m) => m[1]).sort();
  assert.deepEqual(walked, steps);
  // Every runtime file the walk-through names exists (the test above checks existence); and it
  // names the runtime's main files, so the walk cannot drift away from the layer.
  for (const file of ["create_runtime.ts", "open_session_host.ts", "session_host.ts", "run.ts"]) {
    assert.ok(text.includes(`src/runtime/${file}`), `docs/architecture.md does not name ${file}`);
  }
});
