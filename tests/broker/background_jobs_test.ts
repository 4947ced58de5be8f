import assert from "node:assert/strict";
import { join } from "node:path";
import { OutputRing } from "../../src/broker/_output_ring.ts";
import { SANDBOX_CHECK_PASSED } from "../../src/broker/_sandbox_check.ts";
import { BackgroundJobs } from "../../src/broker/background_jobs.ts";
import { SandboxBroker } from "../../src/broker/sandbox_broker.ts";
import type { ToolResult } from "../../src/broker/tool_broker.ts";
import { makeSandboxFixture, sandboxTest } from "../_helpers/sandbox.ts";
import { processesWith, survivorsOf, uniqueSleep } from "./_processes.ts";

const text = (r: ToolResult) => (r.ok ? r.output : `${r.error.kind}: ${r.error.message}`);
const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function alive(pid: number): boolean {
  try {
    Deno.kill(pid, "SIGCONT"); // signal 0 is not offered; SIGCONT is harmless
    return true;
  } catch {
    return false;
  }
}

async function until(check: () => boolean | Promise<boolean>, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error("condition not reached in time");
    await delay(25);
  }
}

/** `promise`, or a rejection naming `what` after `ms` (a hang fails the test instead of the suite). */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not return in ${ms} ms`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

async function readPid(path: string): Promise<number> {
  await until(async () => {
    try {
      return /^\d+\s*$/.test(await Deno.readTextFile(path));
    } catch {
      return false;
    }
  });
  return Number((await Deno.readTextFile(path)).trim());
}

Deno.test("OutputRing keeps the newest bytes, counts all of them and never splits a character", () => {
  const ring = new OutputRing(8);
  ring.write(new TextEncoder().encode("abc"));
  ring.write(new TextEncoder().encode("defghij"));
  assert.deepEqual(ring.tail(100), { text: "cdefghij", omittedBytes: 2 });
  assert.deepEqual(ring.tail(3), { text: "hij", omittedBytes: 7 });
  ring.write(new TextEncoder().encode("x".repeat(50)));
  assert.equal(ring.totalBytes, 60);
  assert.equal(ring.tail(100).text, "x".repeat(8));
  const utf = new OutputRing(5);
  utf.write(new TextEncoder().encode("ééé")); // 6 bytes: the first é is cut in half
  assert.equal(utf.tail(5).text, "éé");
});

for (const mode of ["bwrap", "none"] as const) {
  const register = mode === "bwrap" ? sandboxTest : Deno.test;
  register(
    `bg_* (${mode}): start, status, output, stop; stop kills everything the job started`,
    async () => {
      await using fx = await makeSandboxFixture({ mode });
      const broker = new SandboxBroker({
        context: fx.context,
        resolveWorkspace: () => Promise.resolve(fx.workspace),
        trustLevel: "standard",
      });
      try {
        const write = {
          parts: [{ riskClass: "code_execution" as const, subject: "x", targets: [] }],
          decision: "allow" as const,
          reason: "",
        };
        const run = (id: string, name: string, args: Record<string, unknown>) =>
          broker.run({ id, name, args, ...(name === "bg_start" ? { verdict: write } : {}) });
        const started = await run("c1", "bg_start", {
          command: "sleep 300 & echo $! > inner.pid; echo started; echo oops >&2; wait",
        });
        assert.match(text(started), /^started bg1; it is stopped when this session closes/);
        await until(async () =>
          /stdout:\nstarted\n[^]*stderr:\noops/.test(
            text(await run("c2", "bg_output", { id: "bg1" })),
          )
        );
        const output = text(await run("c3", "bg_output", { id: "bg1" }));
        assert.match(output, /^bg1 · running · /);
        assert.match(output, /stdout:\nstarted\n/);
        assert.match(output, /stderr:\noops\n/);
        assert.match(text(await run("c4", "bg_list", {})), /^bg1 · running/);
        // The inner pid is the sandbox's (bwrap) or the host's (none); in both the job's sleep must die.
        const innerPid = await readPid(join(fx.workspace, "inner.pid"));
        assert.ok(innerPid > 0);
        const stopped = text(await run("c5", "bg_stop", { id: "bg1" }));
        assert.match(stopped, /^bg1 · stopped, exit code \d+/);
        assert.match(text(await run("c6", "bg_status", { id: "bg1" })), /stopped/);
        const unknown = await run("c7", "bg_status", { id: "bg9" });
        assert.equal(unknown.ok, false);
        assert.match(text(unknown), /no background job "bg9" in this run \(jobs: bg1\)/);
        if (mode === "none") await until(() => !alive(innerPid));
      } finally {
        await broker.close();
      }
    },
  );
}

sandboxTest(
  "bg_start: jobs die with the run (broker closed); a read-only scope cannot write",
  async () => {
    await using fx = await makeSandboxFixture();
    const broker = new SandboxBroker({
      context: fx.context,
      resolveWorkspace: () => Promise.resolve(fx.workspace),
      trustLevel: "standard",
    });
    const read = {
      parts: [{ riskClass: "read" as const, subject: "x", targets: [] }],
      decision: "allow" as const,
      reason: "",
    };
    const exec = {
      ...read,
      parts: [{ riskClass: "code_execution" as const, subject: "x", targets: [] }],
    };
    const started = await broker.run({
      id: "c1",
      name: "bg_start",
      args: { command: "echo tick > beat; while sleep 0.05; do date +%s%N > beat; done" },
      verdict: exec,
    });
    assert.ok(started.ok, text(started));
    const beat = join(fx.workspace, "beat");
    await until(async () => (await Deno.stat(beat).catch(() => null)) !== null);
    const denied = await broker.run({
      id: "c2",
      name: "bg_start",
      args: { command: "echo x > written.txt" },
      verdict: read,
    });
    assert.ok(denied.ok, text(denied));
    await until(async () =>
      /exited, exit code [1-9]/.test(
        text(await broker.run({ id: "c3", name: "bg_status", args: { id: "bg2" } })),
      )
    );
    assert.equal(await Deno.stat(join(fx.workspace, "written.txt")).catch(() => null), null);
    await broker.close();
    const before = await Deno.readTextFile(beat);
    await delay(400);
    assert.equal(await Deno.readTextFile(beat), before, "the job kept running after close()");
  },
);

Deno.test("bg_output and bg_stop refuse ids of other shapes before anything runs", async () => {
  await using fx = await makeSandboxFixture({ mode: "none" });
  const broker = new SandboxBroker({
    context: fx.context,
    resolveWorkspace: () => Promise.resolve(fx.workspace),
    trustLevel: "standard",
  });
  try {
    const bad = await broker.run({ id: "c1", name: "bg_output", args: { id: "../x" } });
    assert.equal(bad.ok, false);
    assert.match(text(bad), /^invalid_arguments/);
  } finally {
    await broker.close();
  }
});

sandboxTest(
  "BackgroundJobs: a detached job outlives close(), logs to ODEK_HOME/jobs (0600), and stop() still ends it",
  async () => {
    await using fx = await makeSandboxFixture();
    const jobs = new BackgroundJobs({ graceMs: 500 });
    const set = {
      readPaths: [],
      writePaths: [fx.workspace],
      network: { type: "none" as const },
      runBinaries: [],
      envNames: [],
    };
    const job = await jobs.start(
      "echo detached-out; while sleep 0.05; do date +%s%N > beat; done",
      {
        set,
        context: fx.context,
        detached: true,
      },
    );
    try {
      assert.ok(job.logFile?.startsWith(join(fx.odekHome, "jobs") + "/"), job.logFile);
      assert.equal((await Deno.stat(job.logFile!)).mode! & 0o777, 0o600);
      const beat = join(fx.workspace, "beat");
      await until(async () => (await Deno.stat(beat).catch(() => null)) !== null);
      await jobs.close();
      const before = await Deno.readTextFile(beat);
      await until(async () => (await Deno.readTextFile(beat)) !== before);
      assert.equal(jobs.status(job.id)?.state, "running");
      await until(() => jobs.output(job.id, 1000).stdout.text.includes("detached-out"));
      // The log starts with the sandbox check's word, which the job's output leaves out.
      assert.ok((await Deno.readTextFile(job.logFile!)).startsWith(SANDBOX_CHECK_PASSED));
      assert.ok(jobs.output(job.id, 1000).stdout.text.startsWith("detached-out\n"));
      // A tail that would start inside the token shows none of it.
      assert.deepEqual(jobs.output(job.id, 20).stdout, { text: "detached-out\n", omittedBytes: 0 });
    } finally {
      const stopped = await jobs.stop(job.id);
      assert.equal(stopped.state, "stopped");
    }
  },
);

// A job stopped (or its run closed) within milliseconds of its start reached bwrap while it was
// still setting the sandbox up: bwrap died of the SIGTERM before its sandbox was tied to it, the
// sandbox ran on with PPID 1 holding the job's pipes, and stop() (so the run's close) waited for
// them for ever. Found by tests/e2e/stall_test.ts hanging in half of its runs under load.
for (const detached of [false, true]) {
  sandboxTest(
    `BackgroundJobs: a ${
      detached ? "detached" : "attached"
    } job stopped right after its start leaves nothing running, and stop() returns`,
    async () => {
      await using fx = await makeSandboxFixture();
      const jobs = new BackgroundJobs({ graceMs: 300 });
      const set = {
        readPaths: [],
        writePaths: [fx.workspace],
        network: { type: "none" as const },
        runBinaries: [],
        envNames: [],
      };
      const marker = uniqueSleep();
      try {
        for (let i = 0; i < 20; i++) {
          const job = await jobs.start(marker, { set, context: fx.context, detached });
          // Each round a little later into the sandbox's set-up.
          if (i > 0) await delay(i % 15);
          const stopped = await within(jobs.stop(job.id), 20_000, `stop() of round ${i}`);
          assert.equal(stopped.state, "stopped");
        }
        // The broker's close() takes the same path for every attached job still running.
        await jobs.start(marker, { set, context: fx.context, detached: false });
        await within(jobs.close(), 20_000, "close()");
        assert.deepEqual(await survivorsOf(marker), []);
      } finally {
        for (const pid of processesWith(marker)) Deno.kill(pid, "SIGKILL");
      }
    },
  );
}
