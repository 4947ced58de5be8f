import assert from "node:assert/strict";
import { join } from "node:path";
import { ROOT, sourceFiles } from "./_source_files.ts";

/**
 * Every place odek starts a process, call by call, in source order. `cwd` means the call must
 * pass a working directory (the workspace, resolved and validated before every spawn); any other
 * value is the reason the call needs none. A new spawn site fails this test until someone decides
 * which it is: the default, inheriting odek's own working directory, is how a relative `rm -rf
 * data` once reached an agent's install directory (the dedicated-workspace incident behind
 * docs/workspace.md).
 */
const SITES: Record<string, string[]> = {
  "src/broker/_tool_child.ts": ["cwd"],
  "src/broker/_sandbox_standby.ts": ["cwd"],
  "src/broker/_start_program.ts": [
    "cwd", // bwrap sandbox (also --chdir <workspace>)
    "the docker client: the container runs with -w <workspace> and PWD/OLDPWD set",
    "docker kill <name>: no user text",
    "cwd", // unconfined, through setsid
    "cwd", // unconfined, node fallback
  ],
  "src/broker/sandbox_probes.ts": [
    "probes with fixed argv (bwrap --version, docker version, deno --version); the trivial sandbox has --chdir",
  ],
  "src/broker/background_jobs.ts": ["cwd"], // setsid bash running the job's bwrap sandbox
  "src/broker/find_bwrap.ts": ["bwrap --version: fixed argv"],
  "src/broker/_terminate.ts": [
    "fixed bash scripts that walk /proc: signal a process tree, list a process's children",
  ],
  "src/broker/find_pids_cgroup.ts": ["a fixed probe script for a usable pids cgroup"],
  "src/broker/_kill_sandbox.ts": ["a fixed bash script that walks /proc to kill a sandbox"],
  "src/broker/host_network.ts": [
    "the network namespace holder: bwrap --chdir / running sleep or odek's host-port forwarder, no user text",
    "nsenter … /bin/true: a fixed probe that a program can join the namespace",
  ],
  "src/broker/run_git.ts": ["cwd"], // odek's own git, in its own bare repository
  "src/broker/stdio_server.ts": ["cwd"], // setsid running an MCP server's bwrap sandbox
  "src/broker/open_in_browser.ts": [
    "xdg-open <http(s) URL>: the operator's browser for an OAuth login, cwd /, fixed argv",
  ],
};

/** The code of each spawn call (from the call to the end of its options), comments dropped. */
function spawnCalls(text: string): string[] {
  const code = text.split("\n").filter((line) => !/^\s*(\*|\/\/|\/\*\*)/.test(line)).join("\n");
  const calls: string[] = [];
  // Deno.Command, and node:child_process's spawn (not the standby's own `spawn(spec)` helper).
  const pattern = /new Deno\.Command\(|(?<![.\w])spawn\((?!spec\b)/g;
  for (const match of code.matchAll(pattern)) {
    if (/^(?:function|async function)\s*$/.test(code.slice(0, match.index).split("\n").at(-1)!)) {
      continue;
    }
    const rest = code.slice(match.index);
    const end = rest.indexOf("})");
    calls.push(rest.slice(0, end === -1 ? 400 : end + 2));
  }
  return calls;
}

Deno.test("every process odek starts is classified: it runs in the workspace or says why not", async () => {
  const found: Record<string, string[]> = {};
  for (const file of await sourceFiles("src")) {
    const calls = spawnCalls(await Deno.readTextFile(join(ROOT, file)));
    if (calls.length > 0) found[file] = calls;
  }
  assert.deepEqual(Object.keys(found).sort(), Object.keys(SITES).sort());
  for (const [file, calls] of Object.entries(found)) {
    const expected = SITES[file];
    assert.equal(calls.length, expected.length, `${file}: ${calls.length} spawn calls`);
    calls.forEach((call, i) => {
      if (expected[i] === "cwd") {
        assert.match(call, /\bcwd\b/, `${file}: spawn call ${i + 1} passes no cwd:\n${call}`);
      }
    });
  }
});
