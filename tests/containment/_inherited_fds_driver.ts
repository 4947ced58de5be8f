/**
 * Run by `inherited_fds_test.ts` from a shell that left two descriptors open and inheritable: fd 7
 * on a canary directory and fd 8 the write end of a pipe to a process outside. It starts real
 * brokers (bwrap, and `sandbox: "none"`), lists the descriptors a shell command, a background
 * job and a file-tool child see, and prints one JSON object.
 *
 * Usage: `deno run … _inherited_fds_driver.ts` (from a shell holding fds 7 and 8)
 */
import { SandboxBroker } from "../../src/broker/sandbox_broker.ts";
import { sandboxContextFromEnvironment } from "../../src/broker/sandbox_context.ts";
import type { Verdict } from "../../src/danger/verdict.ts";
import { makeSandboxFixture } from "../_helpers/sandbox.ts";
import { processesAppear } from "../broker/_processes.ts";

const contained: Verdict = {
  parts: [{ riskClass: "code_execution", subject: "fds", targets: [] }],
  decision: "allow",
  reason: "contained",
};
/** The descriptors of the command's own shell, and whether fd 7 still reaches the canary. */
const LIST = "ls /proc/$$/fd; ls /proc/self/fd/7/ 2>/dev/null || echo fd7-gone";

await using fixture = await makeSandboxFixture();
const results: Record<string, unknown> = {};
for (const mode of ["bwrap", "none"] as const) {
  const base = mode === "bwrap" ? fixture.context : {
    ...(await sandboxContextFromEnvironment({
      odekHome: fixture.odekHome,
      installDir: fixture.installDir,
      mode,
    })),
    toolsDir: fixture.context.toolsDir,
  };
  const broker = new SandboxBroker({
    context: base,
    resolveWorkspace: () => Promise.resolve(fixture.workspace),
    trustLevel: "standard",
  });
  try {
    results[`${mode}_shell`] = await broker.run({
      id: "s",
      name: "shell",
      args: { command: LIST },
      verdict: contained,
    });
    broker.prepare(); // a spare sandbox, started now, takes the next command
    // Wait for this fixture's spare (its command line names the marker word and this workspace).
    if (mode === "bwrap") await processesAppear("odek-standby", fixture.workspace);
    results[`${mode}_spare`] = await broker.run({
      id: "p",
      name: "shell",
      args: { command: LIST },
      verdict: contained,
    });
    const started = await broker.run({
      id: "b",
      name: "bg_start",
      args: { command: LIST },
      verdict: contained,
    });
    // Wait (with a deadline) until the job has exited, then read its whole output.
    for (let i = 0; i < 400; i++) {
      const status = await broker.run({ id: `s${i}`, name: "bg_status", args: { id: "bg1" } });
      if (!status.ok || !/ · running · /.test(status.output)) break;
      await new Promise((r) => setTimeout(r, 25));
    }
    const output = await broker.run({ id: "o", name: "bg_output", args: { id: "bg1" } });
    results[`${mode}_bg`] = { started, output };
    // A file-tool child: its descriptors are listed from outside, by a shell of this test.
    results[`${mode}_read`] = await broker.run({ id: "r", name: "read_file", args: { path: "." } });
    results[`${mode}_child_fds`] = await childDescriptors(fixture.workspace);
  } finally {
    await broker.close();
  }
}
// Control: a child spawned directly (not through the broker) does inherit both.
const control = await new Deno.Command("/bin/bash", {
  args: ["-c", "readlink /proc/$$/fd/7 /proc/$$/fd/8"],
  stdout: "piped",
}).output();
results.control = new TextDecoder().decode(control.stdout);
console.log(JSON.stringify({ results }));

/**
 * What the descriptors of every process serving this fixture's workspace (the file-tool child,
 * its bwrap, and bwrap's init) point to, read from outside by bash (Deno refuses `/proc` to a
 * process without `--allow-all`).
 */
async function childDescriptors(workspace: string): Promise<string[]> {
  const script = `for c in /proc/[0-9]*/cmdline; do
  p=\${c%/cmdline}
  [ "\${p#/proc/}" = $$ ] && continue # this scanner, which inherited them too
  if tr '\\0' ' ' < "$c" 2>/dev/null | grep -qF -- "$1" && tr '\\0' ' ' < "$c" | grep -qF files.ts; then
    for f in "$p"/fd/*; do echo "\${p#/proc/} \${f##*/} $(readlink "$f")"; done
  fi
done`;
  const out = await new Deno.Command("/bin/bash", {
    args: ["-c", script, "odek-fds", workspace],
    stdout: "piped",
    stderr: "null",
  }).output();
  return new TextDecoder().decode(out.stdout).trim().split("\n").filter(Boolean);
}
