/**
 * Run by `egress_netns_test.ts` inside the test's "core" network namespace, in a private mount
 * namespace where a temporary hosts file is bound over `/etc/hosts`. It runs the real egress
 * proxy (system resolver, real connect) and the real broker (bwrap, tool children), makes the
 * calls the test names, and prints one JSON object with the results.
 *
 * Usage: `deno run … _egress_netns_driver.ts <output dir>`
 */
import { type EgressDecision, EgressProxy } from "../../src/broker/egress_proxy.ts";
import { SandboxBroker } from "../../src/broker/sandbox_broker.ts";
import type { Verdict } from "../../src/danger/verdict.ts";
import { makeSandboxFixture } from "../_helpers/sandbox.ts";

const network: Verdict = {
  parts: [{ riskClass: "network", subject: "test", targets: [] }],
  decision: "ask",
  reason: "approved by the test",
};
const contained: Verdict = {
  parts: [{ riskClass: "code_execution", subject: "test", targets: [] }],
  decision: "allow",
  reason: "contained",
};

// A loopback listener of the core's namespace: nothing may ever connect to it.
let loopbackConnections = 0;
const loopback = Deno.listen({ hostname: "127.0.0.1", port: 0 });
const lport = (loopback.addr as Deno.NetAddr).port;
void (async () => {
  for await (const conn of loopback) {
    loopbackConnections++;
    conn.close();
  }
})().catch(() => {});

const decisions: EgressDecision[] = [];
const logFile = `${Deno.args[0]}/egress.log`;
await using fixture = await makeSandboxFixture();
const egress = await EgressProxy.start({ onDecision: (d) => decisions.push(d), logFile });
const broker = new SandboxBroker({
  context: fixture.context,
  resolveWorkspace: () => Promise.resolve(fixture.workspace),
  trustLevel: "standard",
  egress,
});
const results: Record<string, unknown> = {};
const run = async (key: string, name: string, args: Record<string, unknown>, verdict = network) => {
  results[key] = await broker.run({ id: key, name, args, verdict });
};
try {
  await run("http_ok", "http_request", { url: "http://test-host.example/hello" });
  await run("browser_ok", "browser", { url: "http://test-host.example/page" });
  await run("http_direct_loopback", "http_request", { url: `http://127.0.0.1:${lport}/` });
  await run("http_name_loopback", "http_request", { url: `http://sneaky.example:${lport}/` });
  await run("http_mapped_loopback", "http_request", { url: `http://[::ffff:127.0.0.1]:${lport}/` });
  await run("http_redirect_loopback", "http_request", {
    url: `http://test-host.example/redirect?to=http://sneaky.example:${lport}/`,
  });
  await run("http_metadata", "http_request", { url: "http://169.254.169.254/latest/meta-data/" });
  await run("shell_net", "shell", {
    command: [
      "ip -o link | cut -d: -f2 | tr -d ' ' | tr '\\n' ' '; echo",
      "curl -sS -m 10 http://test-host.example/from-shell; echo",
      `curl -sS -m 10 -o /dev/null -w 'loopback %{http_code}\\n' http://127.0.0.1:${lport}/`,
      "curl -sS -m 10 -o /dev/null -w 'metadata %{http_code}\\n' http://169.254.169.254/",
      "curl -sS -m 5 --noproxy '*' http://198.51.100.7/direct || echo direct-refused",
    ].join("; "),
  });
  await run("shell_no_net", "shell", {
    command: [
      "ip -o link | cut -d: -f2 | tr -d ' ' | tr '\\n' ' '; echo",
      'echo "proxy=[$HTTP_PROXY]"',
      "curl -sS -m 5 http://test-host.example/offline || echo offline-refused",
    ].join("; "),
  }, contained);
} finally {
  await broker.close();
  loopback.close();
}
console.log(JSON.stringify({
  results,
  decisions,
  loopbackConnections,
  loopbackPort: lport,
  log: await Deno.readTextFile(logFile).catch(() => ""),
}));
