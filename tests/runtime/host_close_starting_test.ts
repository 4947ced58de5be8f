/**
 * A session host closed while its parts are starting (docs/runtime.md, "What a host starts
 * later"): the run's first request was accepted (`onResponse`), so the broker, the egress proxy,
 * the scratch and the network namespace's holder are being built when the host closes. Nothing
 * of them outlives the close.
 */
import assert from "node:assert/strict";
import type { Model, ModelRequest, ModelResponse } from "../../src/llm/model.ts";
import { sandboxTest } from "../_helpers/sandbox.ts";
import { processesWith } from "../broker/_processes.ts";
import { runtimeFixture } from "./_runtime_fixture.ts";

/** Accepts each request at once (its headers are in), then streams nothing until aborted. */
class AcceptingModel implements Model {
  complete(request: ModelRequest): Promise<ModelResponse> {
    request.onResponse?.();
    return new Promise((_, reject) => {
      request.signal?.addEventListener("abort", () => reject(request.signal!.reason));
    });
  }
}

/** The network namespace holders this test process started (other tests' have other parents). */
function myHolders(): number[] {
  return processesWith("odek-netns").filter((pid) => {
    try {
      // `pid (comm) state ppid …`: comm may hold spaces, so the fields after its last ")".
      const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
      return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === Deno.pid;
    } catch {
      return false; // ended meanwhile
    }
  });
}

/**
 * Every entry below `dir`, as paths relative to it, but the user's scratch parent `odek-<uid>`
 * itself (shared by the user's hosts and kept; each host's scratch is a folder in it).
 */
async function entries(dir: string, prefix = ""): Promise<string[]> {
  const out: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    const path = `${prefix}${entry.name}`;
    if (!/^odek-\d+$/.test(path)) out.push(path);
    if (entry.isDirectory) out.push(...await entries(`${dir}/${entry.name}`, `${path}/`));
  }
  return out.sort();
}

for (const sandbox of ["bwrap", "none"] as const) {
  const test = sandbox === "bwrap" ? sandboxTest : Deno.test;
  test(`a host closed while its parts start (sandbox ${sandbox}) leaves no proxy, scratch or process`, async () => {
    await using f = await runtimeFixture({
      scripts: [],
      sandbox,
      runtime: { modelFactory: () => new AcceptingModel() },
    });
    const before = await entries(f.tmp);
    const host = await f.runtime.openSession({ task: "t" }, { workspace: await f.workspace("ws") });
    const run = await host.startRun();
    // The request was accepted: the parts are starting.
    while (host.whenReady() === undefined) await new Promise((r) => setTimeout(r, 0));
    const closing = host.close();
    const outcome = await run.result;
    await closing;
    assert.notEqual(outcome.type, "completed");
    assert.deepEqual(await entries(f.tmp), before, "something the parts made outlived the host");
    // Killing a sandbox is asynchronous in the kernel: a bound on liveness, not on speed.
    const deadline = Date.now() + 5000;
    while (myHolders().length > 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.deepEqual(myHolders(), [], "the network namespace's holder outlived the host");
    // The parts came up (or failed) while the host closed: either way nothing is left.
    await host.whenReady()?.catch(() => {});
    assert.deepEqual(await entries(f.tmp), before);
  });
}
