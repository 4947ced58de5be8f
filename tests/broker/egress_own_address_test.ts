/**
 * Issue 12: the egress proxy refuses a service bound to `0.0.0.0` (and `::`) reached through the
 * machine's own non-loopback address. The test creates a network namespace, gives it a veth with
 * the documentation addresses 198.51.100.5 and 2001:db8::5 (allowed by the registries, so only
 * the own-address rule can refuse them), and runs the real proxy inside it. The machine's own
 * network is never touched; the namespace is deleted.
 */
import assert from "node:assert/strict";

const INSTALL = "apt-get install iproute2";

async function sh(...args: string[]): Promise<string> {
  const out = await new Deno.Command(args[0], { args: args.slice(1), stderr: "piped" }).output();
  if (!out.success) {
    throw new Error(`${args.join(" ")} failed: ${new TextDecoder().decode(out.stderr)}`);
  }
  return new TextDecoder().decode(out.stdout);
}

const hasIp = (await new Deno.Command("bash", { args: ["-c", "command -v ip"] }).output()).success;
const reason = Deno.uid() !== 0
  ? "network namespaces need root"
  : !hasIp
  ? "ip (iproute2) missing"
  : null;
if (reason !== null) {
  console.error(`skipping the own-address egress test: ${reason} (install with: ${INSTALL})`);
}

Deno.test({
  name: "the egress proxy refuses a 0.0.0.0 listener reached through the machine's own address",
  ignore: reason !== null,
  fn: async () => {
    const id = `${Deno.pid % 10000}${Math.floor(Math.random() * 1000)}`;
    const ns = `odek-t${id}-self`;
    try {
      await sh("ip", "netns", "add", ns);
      const inNs = (...args: string[]) => sh("ip", "netns", "exec", ns, ...args);
      await inNs("ip", "link", "add", `sa${id}`, "type", "veth", "peer", "name", `sb${id}`);
      await inNs("ip", "addr", "add", "198.51.100.5/24", "dev", `sa${id}`);
      await inNs("ip", "addr", "add", "2001:db8::5/64", "dev", `sa${id}`, "nodad");
      for (const link of ["lo", `sa${id}`, `sb${id}`]) await inNs("ip", "link", "set", link, "up");
      const driver = new URL("./_egress_own_address_driver.ts", import.meta.url).pathname;
      const out = await new Deno.Command("ip", {
        args: [
          "netns",
          "exec",
          ns,
          Deno.execPath(),
          "run",
          "--allow-read",
          "--allow-write",
          "--allow-env",
          "--allow-net",
          "--allow-sys=networkInterfaces",
          driver,
        ],
        stdout: "piped",
        stderr: "piped",
      }).output();
      const stderr = new TextDecoder().decode(out.stderr);
      assert.ok(out.success, `driver failed: ${stderr}`);
      const report = JSON.parse(new TextDecoder().decode(out.stdout).trim().split("\n").at(-1)!);
      assert.equal(report.own4, "198.51.100.5", "the address comes from Deno.networkInterfaces()");
      assert.equal(report.own6, "2001:db8::5");
      assert.equal(report.direct, 2, "the listeners are reachable through those addresses");
      for (const [key, line] of Object.entries(report.replies)) {
        assert.match(String(line), /^HTTP\/1\.1 403/, `${key}: ${line}`);
      }
      assert.equal(report.through, 0, "the proxy never connected to them");
      for (const decision of report.decisions) {
        assert.equal(decision.allowed, false, JSON.stringify(decision));
        assert.match(decision.reason, /host interface address/, JSON.stringify(decision));
      }
      assert.equal(report.decisions.length, 5);
      assert.match(report.control.reply, /^HTTP\/1\.1 200/, "without the rule it would connect");
      assert.equal(report.control.connections, 1);
    } finally {
      await sh("ip", "netns", "del", ns).catch(() => {});
    }
  },
});
