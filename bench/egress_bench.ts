/**
 * What network costs a shell command (docs/network.md): the median wall time of a trivial
 * command granted network versus one without, started on demand (the forwarder starts inside
 * the sandbox first) and from spare sandboxes (`prepare()` while the "model thinks", so the
 * forwarder is already listening). Needs bwrap; nothing leaves the machine.
 *
 * Run: `deno run --allow-read --allow-write --allow-env --allow-net --allow-run --allow-sys bench/egress_bench.ts`
 *
 * @module
 */
import { EgressProxy } from "../src/broker/egress_proxy.ts";
import { runShell } from "../src/broker/run_shell.ts";
import { SandboxBroker } from "../src/broker/sandbox_broker.ts";
import type { Verdict } from "../src/danger/verdict.ts";
import { bwrap, makeSandboxFixture } from "../tests/_helpers/sandbox.ts";

const RUNS = 15;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

function verdict(network: boolean): Verdict {
  const riskClass = network ? "network" : "code_execution";
  return { parts: [{ riskClass, subject: "bench", targets: [] }], decision: "allow", reason: "" };
}

if (bwrap === null) {
  console.log("egress bench skipped: bwrap is not installed (apt-get install bubblewrap)");
  Deno.exit(0);
}

await using fixture = await makeSandboxFixture();
const egress = await EgressProxy.start();
const context = {
  ...fixture.context,
  workspace: fixture.workspace,
  egressSocket: egress.socketPath,
};
const base = {
  readPaths: [fixture.workspace],
  writePaths: [fixture.workspace],
  runBinaries: [],
  envNames: [],
};
const command = (network: boolean) => (network ? 'test -n "$HTTP_PROXY"' : "true");

async function onDemand(network: boolean): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < RUNS + 1; i++) {
    const t0 = performance.now();
    const result = await runShell(command(network), {
      set: { ...base, network: network ? { type: "proxy", allowDomains: [] } : { type: "none" } },
      context,
      timeoutMs: 30_000,
    });
    if (!result.ok) throw new Error(JSON.stringify(result));
    if (i > 0) times.push(performance.now() - t0);
  }
  return median(times);
}

const broker = new SandboxBroker({
  context: fixture.context,
  resolveWorkspace: () => Promise.resolve(fixture.workspace),
  trustLevel: "standard",
  egress: await EgressProxy.start(),
});

async function withSpares(network: boolean): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < RUNS + 2; i++) {
    broker.prepare();
    await new Promise((resolve) => setTimeout(resolve, 300)); // the model thinks
    const t0 = performance.now();
    const result = await broker.run({
      id: `b${i}`,
      name: "shell",
      args: { command: command(network) },
      verdict: verdict(network),
    });
    if (!result.ok) throw new Error(JSON.stringify(result));
    if (i > 1) times.push(performance.now() - t0);
  }
  return median(times);
}

try {
  const rows = [
    ["shell, on demand, no network", await onDemand(false)],
    ["shell, on demand, network (forwarder starts first)", await onDemand(true)],
    ["shell, spare sandbox, no network", await withSpares(false)],
    ["shell, spare sandbox, network", await withSpares(true)],
  ] as const;
  for (const [name, ms] of rows) console.log(`${name}: median ${ms.toFixed(1)} ms`);
} finally {
  await broker.close();
  await egress.close();
}
