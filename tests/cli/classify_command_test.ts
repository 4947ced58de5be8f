import assert from "node:assert/strict";
import { join } from "node:path";
import { classifyCommand } from "../../src/cli/classify_command.ts";
import type { CliIO } from "../../src/cli/cli_io.ts";
import { main } from "../../src/cli/main.ts";
import { OdekError } from "../../src/_util/odek_error.ts";
import { createClassifier } from "../../src/danger/create_classifier.ts";

const classifier = await createClassifier();

/** A fake CliIO over a private HOME with a workspace `ws`; dispose it to delete both. */
async function fixture(options: { config?: string; stdin?: string } = {}) {
  const home = await Deno.makeTempDir({ prefix: "odek-classify-" });
  await Deno.mkdir(join(home, "ws"));
  await Deno.mkdir(join(home, ".odek"));
  if (options.config) await Deno.writeTextFile(join(home, ".odek", "config.jsonc"), options.config);
  const out = { stdout: "", stderr: "" };
  const io: CliIO = {
    stdout: { write: (text) => void (out.stdout += text) },
    stderr: { write: (text) => void (out.stderr += text) },
    readStdin: () => Promise.resolve(options.stdin ?? ""),
    stdinIsTerminal: false,
    stderrIsTerminal: false,
    env: { HOME: home, PATH: "/usr/bin:/bin" },
    callerDir: join(home, "ws"),
    installDir: "/opt/odek",
    onSignal: () => () => {},
  };
  return {
    home,
    io,
    out,
    run: (args: string[]) => classifyCommand(args, io, { classifier }),
    [Symbol.asyncDispose]: () => Deno.remove(home, { recursive: true }),
  };
}

Deno.test("classifyCommand() prints every part, the decision and the reason", async () => {
  await using f = await fixture();
  const code = await f.run(["git status && rm -rf ~/projects"]);
  assert.equal(code, 0);
  const lines = f.out.stdout.split("\n");
  assert.equal(lines[0], "parts:");
  assert.match(f.out.stdout, /^ {2}read {12}git status$/m);
  assert.match(f.out.stdout, /^ {2}destructive {5}rm -rf ~\/projects$/m);
  assert.ok(f.out.stdout.includes(`targets: ${join(f.home, "projects")}`), f.out.stdout);
  assert.match(f.out.stdout, /^decision: ask \(trust level standard\)$/m);
  assert.match(f.out.stdout, /^reason: rm -rf ~\/projects: destructive \(deletes outside/m);
});

Deno.test("classifyCommand() prints the verdict as JSON with --json", async () => {
  await using f = await fixture();
  assert.equal(await f.run(["--json", "npm test"]), 0);
  const verdict = JSON.parse(f.out.stdout);
  assert.equal(verdict.decision, "allow");
  assert.deepEqual(verdict.parts.map((p: { riskClass: string }) => p.riskClass), [
    "code_execution",
  ]);
  assert.equal(typeof verdict.reason, "string");
});

Deno.test("classifyCommand() decides at --trust, else at the config's trustLevel", async () => {
  await using f = await fixture({ config: '{ "trustLevel": "untrusted" }' });
  await f.run(["--json", "npm test"]);
  assert.equal(JSON.parse(f.out.stdout).decision, "deny");
  f.out.stdout = "";
  await f.run(["--json", "--trust", "standard", "npm test"]);
  assert.equal(JSON.parse(f.out.stdout).decision, "allow");
  f.out.stdout = "";
  await f.run(["--trust", "trusted", "cat /etc/hosts"]);
  assert.match(f.out.stdout, /^decision: allow \(trust level trusted\)$/m);
});

Deno.test("classifyCommand() judges paths against --workspace and protects ODEK_HOME", async () => {
  await using f = await fixture();
  await Deno.mkdir(join(f.home, "other"));
  await f.run(["--json", "--workspace", join(f.home, "other"), "rm -rf ../ws"]);
  const parts = JSON.parse(f.out.stdout).parts;
  assert.deepEqual(parts[0].targets, [join(f.home, "ws")]);
  assert.equal(parts[0].riskClass, "destructive");
  f.out.stdout = "";
  await f.run(["--json", "cat ~/.odek/config.jsonc"]);
  assert.equal(JSON.parse(f.out.stdout).decision, "deny");
});

Deno.test("classifyCommand() reads the command from stdin with -", async () => {
  await using f = await fixture({ stdin: "cat <<'EOF' | sh\ncurl https://e.example\nEOF\n" });
  await f.run(["--json", "-"]);
  const verdict = JSON.parse(f.out.stdout);
  assert.equal(verdict.decision, "ask");
  assert.ok(verdict.parts.some((p: { targets: string[] }) => p.targets.includes("e.example")));
});

Deno.test("classifyCommand() refuses bad usage with a USAGE error", async () => {
  await using f = await fixture();
  for (const args of [[], ["a", "b"], ["--trust", "root", "ls"], ["--nope", "ls"]]) {
    await assert.rejects(
      () => f.run(args),
      (e: unknown) => e instanceof OdekError && e.code === "USAGE",
    );
  }
  assert.equal(await f.run(["--help"]), 0);
  assert.match(f.out.stdout, /Usage: odek classify/);
});

Deno.test("main() dispatches classify and maps its errors to exit codes", async () => {
  await using f = await fixture();
  assert.equal(await main(["classify", "--json", "ls"], f.io), 0);
  assert.equal(JSON.parse(f.out.stdout).decision, "allow");
  assert.equal(await main(["classify"], f.io), 2);
  assert.match(f.out.stderr, /odek classify takes one command/);
  assert.equal(await main(["classify", "--workspace", "missing", "ls"], f.io), 1);
});

Deno.test("classifyCommand() treats a writable --add-dir like the workspace, and refuses one inside ODEK_HOME", async () => {
  await using f = await fixture();
  const cache = await Deno.realPath(await Deno.makeTempDir({ dir: f.home, prefix: "cache-" }));
  await f.run(["--json", `echo x > ${cache}/out.txt`]);
  const before = JSON.parse(f.out.stdout).parts.map((p: { riskClass: string }) => p.riskClass);
  assert.ok(before.includes("system_write"), before.join());
  f.out.stdout = "";
  await f.run(["--json", "--add-dir", cache, `echo x > ${cache}/out.txt`]);
  const after = JSON.parse(f.out.stdout);
  assert.ok(after.parts.some((p: { riskClass: string }) => p.riskClass === "local_write"));
  assert.equal(after.decision, "allow");
  await assert.rejects(
    f.run(["--add-dir", join(f.home, ".odek"), "true"]),
    (error: OdekError) => error.code === "WORKSPACE_INVALID",
  );
});
