import assert from "node:assert/strict";
import type { DoctorReport } from "../../src/cli/doctor_report.ts";
import { sandboxTest } from "../_helpers/sandbox.ts";
import { odekFixture } from "./_odek.ts";

function parse(stdout: string): DoctorReport {
  return JSON.parse(stdout) as DoctorReport;
}

sandboxTest(
  "odek doctor --json reports the active layers after starting a real sandbox, and exits 0",
  async () => {
    await using fx = await odekFixture();
    const result = await fx.run(["doctor", "--json"]);
    assert.equal(result.code, 0, result.stdout + result.stderr);
    const report = parse(result.stdout);
    assert.equal(report.ok, true);
    assert.deepEqual(report.problems, []);
    assert.equal(report.odek.odekHome, fx.odekHome);
    assert.equal(report.odek.configFile, `${fx.odekHome}/config.jsonc`);
    assert.equal(report.sandbox.configured, "bwrap");
    assert.equal(report.sandbox.started, true);
    assert.equal(report.layers.denoFlags.status, "active");
    assert.equal(report.layers.bwrap.status, "active");
    assert.match(report.layers.bwrap.version ?? "", /^\d+\.\d+/);
    assert.equal(report.layers.networkNamespace.status, "active");
    assert.match(report.layers.networkNamespace.detail, /: lo$/);
    assert.equal(report.layers.egressGuard.status, "active");
    assert.equal(report.layers.seccomp.status, "active");
    assert.equal(report.deno.children.version, Deno.version.deno);
    assert.equal(report.deno.children.source, "self");
    assert.deepEqual(report.workspace, {
      requested: fx.workspace,
      kind: "current directory",
      ok: true,
      path: fx.workspace,
    });
    const text = await fx.run(["doctor"]);
    assert.equal(text.code, 0);
    assert.match(text.stdout, /sandbox "bwrap": works/);
  },
);

Deno.test("odek doctor exits 1 with the install command when bwrap cannot be found", async () => {
  await using fx = await odekFixture();
  const result = await fx.run(["doctor", "--json"], { env: { PATH: "/nonexistent" } });
  assert.equal(result.code, 1, result.stderr);
  const report = parse(result.stdout);
  assert.equal(report.layers.bwrap.status, "unavailable");
  assert.equal(report.layers.docker.status, "unavailable");
  assert.equal(report.layers.docker.client, null);
  assert.ok(report.problems.some((p) => p.includes('"apt-get install bubblewrap"')));
});

Deno.test("odek doctor exits 1 when sandbox is docker and no container can start", async () => {
  await using fx = await odekFixture();
  const result = await fx.run(["doctor", "--json"], { env: { ODEK_SANDBOX: "docker" } });
  const report = parse(result.stdout);
  if (report.layers.docker.started) {
    console.error("skipping: a docker engine answered here, so docker mode works");
    assert.equal(result.code, 0);
    return;
  }
  assert.equal(result.code, 1);
  assert.equal(report.sandbox.configured, "docker");
  assert.equal(report.sandbox.started, false);
  assert.ok(report.problems.some((p) => /sandbox is "docker" but no container started/.test(p)));
});

Deno.test("odek doctor exits 1 for an unusable workspace and names the fix", async () => {
  await using fx = await odekFixture();
  // The home contains ODEK_HOME: a run there is refused, so doctor says so.
  const result = await fx.run(["doctor"], { cwd: fx.home });
  assert.equal(result.code, 1);
  assert.match(result.stdout, /workspace \(current directory\)\n +UNUSABLE +Cannot use workspace/);
  assert.match(result.stdout, /contains odek's protected directory/);
});

Deno.test("odek doctor --dedicated-workspace provisions and checks the dedicated workspace, --add-dir checks added directories", async () => {
  await using fx = await odekFixture();
  const result = await fx.run([
    "doctor",
    "--json",
    "--dedicated-workspace",
    "--add-dir",
    `${fx.odekHome}:ro`,
  ]);
  const report = parse(result.stdout);
  assert.equal(report.workspace.kind, "dedicated");
  assert.equal(report.workspace.path, `${fx.odekHome}-workspace`);
  assert.equal(((await Deno.stat(`${fx.odekHome}-workspace`)).mode ?? 0) & 0o777, 0o700);
  assert.equal(report.addDirs[0].ok, false);
  assert.match(report.addDirs[0].error ?? "", /inside odek's protected directory/);
  assert.equal(result.code, 1);
});
