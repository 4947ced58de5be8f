/**
 * The installed command for real: `scripts/install.ts` into a scratch prefix, then — inside a
 * network namespace this test creates, with only loopback — the launcher runs a task with a
 * `shell` and a `read_file` call against the fake server on 127.0.0.1, prints no `Download` line,
 * and a SIGTERM to the launcher stops a run with exit 143 and a saved session.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { PINNED_DENO_VERSION } from "../../src/runtime/child_deno_path.ts";
import { bwrap } from "../_helpers/sandbox.ts";
import { installAsUser, ROOT } from "./_odek.ts";

const INSTALL = "apt-get install util-linux iproute2 bubblewrap";

async function has(name: string): Promise<boolean> {
  const out = await new Deno.Command("bash", { args: ["-c", `command -v ${name}`], stdout: "null" })
    .output();
  return out.success;
}

const reason = Deno.uid() !== 0
  ? "network namespaces need root"
  : !(await has("unshare")) || !(await has("ip"))
  ? "unshare or ip missing"
  : bwrap === null
  ? "bwrap missing"
  : null;
if (reason !== null) {
  console.error(
    `skipping the installed-command test: ${reason} (install with: ${INSTALL}; run as root)`,
  );
}

Deno.test({
  name:
    "the installed odek runs offline in a loopback-only namespace, prints no Download line, and stops on SIGTERM",
  ignore: reason !== null,
  fn: async () => {
    const root = await Deno.realPath(
      await Deno.makeTempDir({ dir: "/var/tmp", prefix: "odek-install-" }),
    );
    try {
      const prefix = join(root, "bin");
      const home = join(root, "home");
      const odekHome = join(home, ".odek");
      const workspace = join(root, "workspace");
      const denoDir = join(root, "deno-dir"); // empty: nothing may need fetching
      for (const dir of [odekHome, workspace, denoDir]) await Deno.mkdir(dir, { recursive: true });
      const installLog = await installAsUser(prefix);
      const launcher = join(prefix, "odek");
      const deno = join(prefix, `odek-deno-${PINNED_DENO_VERSION}`, "deno");
      assert.match(
        installLog,
        new RegExp(
          `installed ${launcher} \\(deno ${PINNED_DENO_VERSION} (hard-linked|copied) to ${deno}\\)`,
        ),
      );
      const script = await Deno.readTextFile(launcher);
      assert.match(script, /^#!\/bin\/sh\n/);
      assert.ok(script.includes(`exec '${deno}' 'run' `), script);
      assert.ok(
        !/npx|_npx|deno install/.test(script.split("\n").at(-2)!),
        "the launcher must not use npx",
      );
      // The task's flags, exactly, after --config, --cached-only and the node_modules flags.
      const task = JSON.parse(await Deno.readTextFile(join(ROOT, "deno.json"))).tasks.odek.command;
      const flags = task.split("&&").at(-1).trim().split(/\s+/).slice(2, -1);
      assert.ok(script.includes(flags.map((f: string) => `'${f}'`).join(" ")), script);
      assert.ok(script.includes("'--allow-sys=uid,gid,networkInterfaces'"));
      // Deno's progress bar would clear lines of odek's terminal when it loads a module late
      // (tests/e2e/interactive_commands_test.ts keeps that failing input): odek runs --quiet.
      assert.ok(script.includes("'--quiet'"), script);

      const driver = await new Deno.Command("unshare", {
        args: [
          "--net",
          Deno.execPath(),
          "run",
          "--allow-read",
          "--allow-write",
          "--allow-run",
          "--allow-net",
          "--allow-env",
          "--allow-sys",
          join(ROOT, "tests/e2e/_installed_driver.ts"),
          JSON.stringify({ launcher, home, odekHome, workspace, denoDir }),
        ],
        cwd: ROOT,
        stdout: "piped",
        stderr: "piped",
      }).output();
      const out = new TextDecoder().decode(driver.stdout);
      assert.ok(driver.success, `${out}\n${new TextDecoder().decode(driver.stderr)}`);
      const seen = JSON.parse(out.trim().split("\n").at(-1)!);
      assert.equal(seen.loUp, true);
      assert.deepEqual(seen.interfaces.filter((name: string) => name !== "lo"), []);
      assert.equal(seen.run.code, 0, seen.run.stderr);
      assert.equal(seen.requests, 3);
      assert.equal(seen.sawShellAndRead, true);
      assert.equal(seen.fileMade, "made-by-shell\n");
      assert.doesNotMatch(`${seen.run.stdout}${seen.run.stderr}`, /Download/);
      assert.match(seen.run.stderr, /✓ shell echo made-by-shell > out\.txt/);
      assert.match(seen.run.stderr, /✓ read_file out\.txt/);
      assert.deepEqual(seen.doctor, { launcher, binary: deno });
      assert.equal(seen.term.appeared, true, seen.term.stderr);
      assert.equal(seen.term.code, 143, seen.term.stderr);
      assert.match(seen.term.stderr, /SIGTERM received: stopping tools and saving the session/);
      assert.equal(seen.term.interruptedSaved, true, seen.term.stderr);
      assert.doesNotMatch(seen.term.stderr, /Download/);
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  },
});

Deno.test("launcherScript() quotes every path for the shell and passes the arguments on as they are", async () => {
  const { launcherScript } = await import("../../scripts/install.ts");
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "odek-launcher-" }));
  try {
    // A stand-in for deno that prints its arguments, one per line; paths with a quote and spaces.
    const fake = join(dir, "it's deno");
    await Deno.writeTextFile(fake, '#!/bin/sh\nfor a in "$@"; do echo "[$a]"; done\n', {
      mode: 0o755,
    });
    await Deno.chmod(fake, 0o755);
    const root = join(dir, "odek's checkout");
    await Deno.mkdir(root);
    await Deno.copyFile(join(ROOT, "deno.json"), join(root, "deno.json"));
    const launcher = join(dir, "odek");
    await Deno.writeTextFile(launcher, launcherScript(root, launcher, fake), { mode: 0o755 });
    await Deno.chmod(launcher, 0o755);
    const out = await new Deno.Command(launcher, {
      args: ["run", "two words", "$HOME", "it's"],
      stdout: "piped",
    }).output();
    const lines = new TextDecoder().decode(out.stdout).trim().split("\n");
    assert.deepEqual(lines.slice(0, 6), [
      "[run]",
      "[--config]",
      `[${root}/deno.json]`,
      "[--cached-only]",
      "[--node-modules-dir=manual]",
      "[--no-lock]",
    ]);
    assert.deepEqual(lines.slice(-5), [
      `[${root}/main.ts]`,
      "[run]",
      "[two words]",
      "[$HOME]",
      "[it's]",
    ]);
    assert.ok(lines.includes("[--allow-sys=uid,gid,networkInterfaces]"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
