/**
 * The egress path for real: two network namespaces the test creates ("core" and "host", joined
 * by a veth pair), a test host at the documentation address 198.51.100.7 (and, to prove it is
 * never reached, 169.254.169.254 on the same interface), and the code under test run in the
 * core namespace inside a private mount namespace where a temporary hosts file is bound over
 * `/etc/hosts`, so the system resolver sees `test-host.example` and `sneaky.example` (127.0.0.1).
 * The machine's own `/etc/hosts` and network are never touched; the namespaces are deleted.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { bwrap } from "../_helpers/sandbox.ts";

const INSTALL = "apt-get install iproute2 util-linux bubblewrap curl";

async function which(name: string): Promise<boolean> {
  const out = await new Deno.Command("bash", { args: ["-c", `command -v ${name}`] }).output();
  return out.success;
}

async function sh(...args: string[]): Promise<string> {
  const out = await new Deno.Command(args[0], { args: args.slice(1), stderr: "piped" }).output();
  if (!out.success) {
    throw new Error(`${args.join(" ")} failed: ${new TextDecoder().decode(out.stderr)}`);
  }
  return new TextDecoder().decode(out.stdout);
}

const missing: string[] = [];
for (const tool of ["ip", "unshare", "curl", "mount"]) if (!(await which(tool))) missing.push(tool);
const reason = Deno.uid() !== 0
  ? "network namespaces need root"
  : missing.length > 0
  ? `${missing.join(", ")} missing`
  : bwrap === null
  ? "bwrap missing"
  : null;
if (reason !== null) {
  console.error(
    `skipping egress namespace tests: ${reason} (install with: ${INSTALL}; run as root)`,
  );
}

/** The test host: counts every TCP connection by local address, answers a tiny HTTP response. */
const SERVER = `
const log = Deno.args[0];
const listener = Deno.listen({ hostname: "0.0.0.0", port: 80 });
await Deno.writeTextFile(log, "ready\\n", { append: true });
for await (const conn of listener) {
  (async () => {
    const local = conn.localAddr.hostname;
    const buf = new Uint8Array(8192);
    const n = await conn.read(buf) ?? 0;
    const line = new TextDecoder().decode(buf.subarray(0, n)).split("\\r\\n")[0];
    const path = line.split(" ")[1] ?? "";
    await Deno.writeTextFile(log, local + " " + path + "\\n", { append: true });
    let status = "200 OK", type = "text/plain", body = "hello from 198.51.100.7 " + path, extra = "";
    if (path.startsWith("/redirect?to=")) {
      status = "302 Found"; body = ""; extra = "Location: " + decodeURIComponent(path.slice(13)) + "\\r\\n";
    } else if (path === "/page") {
      type = "text/html";
      body = "<html><head><title>Host page</title></head><body><p>Served from the namespace. <a href='/more'>More</a></p></body></html>";
    }
    const bytes = new TextEncoder().encode(body);
    await conn.write(new TextEncoder().encode("HTTP/1.1 " + status + "\\r\\nContent-Type: " + type + "\\r\\n" + extra + "Content-Length: " + bytes.length + "\\r\\nConnection: close\\r\\n\\r\\n"));
    await conn.write(bytes);
    conn.close();
  })().catch(() => conn.close());
}
`;

Deno.test({
  name: "egress through namespaces: the test host is reached by name, loopback and metadata never",
  ignore: reason !== null,
  fn: async () => {
    const id = `${Deno.pid % 10000}${Math.floor(Math.random() * 1000)}`;
    const core = `odek-t${id}-core`;
    const host = `odek-t${id}-host`;
    const dir = await Deno.makeTempDir({ prefix: "odek-netns-" });
    let server: Deno.ChildProcess | null = null;
    try {
      await sh("ip", "netns", "add", core);
      await sh("ip", "netns", "add", host);
      await sh(
        "ip",
        "link",
        "add",
        `oc${id}`,
        "netns",
        core,
        "type",
        "veth",
        "peer",
        "name",
        `oh${id}`,
        "netns",
        host,
      );
      const inCore = (...args: string[]) => sh("ip", "netns", "exec", core, ...args);
      const inHost = (...args: string[]) => sh("ip", "netns", "exec", host, ...args);
      await inCore("ip", "addr", "add", "198.51.100.1/24", "dev", `oc${id}`);
      await inCore("ip", "link", "set", "lo", "up");
      await inCore("ip", "link", "set", `oc${id}`, "up");
      await inCore("ip", "route", "add", "169.254.169.254/32", "dev", `oc${id}`);
      await inHost("ip", "addr", "add", "198.51.100.7/24", "dev", `oh${id}`);
      await inHost("ip", "addr", "add", "169.254.169.254/32", "dev", `oh${id}`);
      await inHost("ip", "link", "set", "lo", "up");
      await inHost("ip", "link", "set", `oh${id}`, "up");
      const serverLog = join(dir, "server.log");
      await Deno.writeTextFile(join(dir, "server.ts"), SERVER);
      server = new Deno.Command("ip", {
        args: [
          "netns",
          "exec",
          host,
          Deno.execPath(),
          "run",
          "--no-config",
          "--allow-net",
          `--allow-write=${dir}`,
          join(dir, "server.ts"),
          serverLog,
        ],
        stdout: "null",
        stderr: "null",
      }).spawn();
      for (
        let i = 0;
        i < 200 && !(await Deno.readTextFile(serverLog).catch(() => "")).includes("ready");
        i++
      ) {
        await new Promise((r) => setTimeout(r, 50));
      }
      const hosts = join(dir, "hosts");
      await Deno.writeTextFile(
        hosts,
        "127.0.0.1 localhost\n::1 localhost\n198.51.100.7 test-host.example\n127.0.0.1 sneaky.example\n",
      );
      const driver = new URL("./_egress_netns_driver.ts", import.meta.url).pathname;
      const deno = Deno.execPath();
      const script =
        `mount --bind "$1" /etc/hosts && exec "$2" run --allow-read --allow-write --allow-env --allow-net --allow-run --allow-sys "$3" "$4"`;
      const out = await new Deno.Command("ip", {
        args: [
          "netns",
          "exec",
          core,
          "unshare",
          "--mount",
          "--propagation",
          "private",
          "bash",
          "-c",
          script,
          "driver",
          hosts,
          deno,
          driver,
          dir,
        ],
        stdout: "piped",
        stderr: "piped",
      }).output();
      const stdout = new TextDecoder().decode(out.stdout);
      assert.ok(out.success, `driver failed: ${new TextDecoder().decode(out.stderr)}`);
      const report = JSON.parse(stdout.trim().split("\n").at(-1)!);
      const r = report.results;
      // Success path: named through the hosts file the system resolver sees.
      assert.ok(r.http_ok.ok, JSON.stringify(r.http_ok));
      assert.ok(r.http_ok.output.includes("hello from 198.51.100.7 /hello"), r.http_ok.output);
      assert.ok(
        r.browser_ok.ok && r.browser_ok.output.includes("title: Host page"),
        JSON.stringify(r.browser_ok),
      );
      assert.ok(r.browser_ok.output.includes("[1] More — http://test-host.example/more"));
      const ok = report.decisions.find((d: { host: string }) => d.host === "test-host.example");
      assert.deepEqual(ok, {
        host: "test-host.example",
        port: 80,
        address: "198.51.100.7",
        allowed: true,
      });
      // SSRF: all refused, as data.
      for (
        const key of [
          "http_direct_loopback",
          "http_name_loopback",
          "http_mapped_loopback",
          "http_redirect_loopback",
          "http_metadata",
        ]
      ) {
        assert.equal(r[key].ok, false, key);
        assert.equal(r[key].error.kind, "denied", `${key}: ${JSON.stringify(r[key])}`);
      }
      assert.equal(report.loopbackConnections, 0);
      // Shell with network: the proxy reaches the test host; loopback and metadata get 403; no direct route.
      assert.ok(r.shell_net.ok, JSON.stringify(r.shell_net));
      const shellOut: string = r.shell_net.output;
      assert.match(shellOut, /stdout:\nlo \n/);
      assert.ok(shellOut.includes("hello from 198.51.100.7 /from-shell"), shellOut);
      assert.ok(shellOut.includes("loopback 403"), shellOut);
      assert.ok(shellOut.includes("metadata 403"), shellOut);
      assert.ok(shellOut.includes("direct-refused"), shellOut);
      // Shell without network: only lo, no proxy, nothing reached.
      assert.ok(r.shell_no_net.ok, JSON.stringify(r.shell_no_net));
      assert.match(r.shell_no_net.output, /stdout:\nlo \nproxy=\[\]\noffline-refused/);
      // The test host saw exactly the allowed requests, and nothing on the metadata address.
      const seen = (await Deno.readTextFile(serverLog)).trim().split("\n").slice(1);
      assert.deepEqual(
        seen.sort(),
        [
          "198.51.100.7 /from-shell",
          "198.51.100.7 /hello",
          "198.51.100.7 /page",
          `198.51.100.7 /redirect?to=http://sneaky.example:${report.loopbackPort}/`,
        ].sort(),
      );
      assert.ok(!seen.some((line: string) => line.startsWith("169.254.169.254")), seen.join("\n"));
      // The operator's log has a line per destination.
      assert.match(report.log, /allowed "test-host\.example:80" 198\.51\.100\.7/);
      assert.match(report.log, /refused "169\.254\.169\.254:80" 169\.254\.169\.254 "link-local/);
      assert.match(report.log, /refused "sneaky\.example:\d+" 127\.0\.0\.1 "loopback address"/);
    } finally {
      if (server !== null) {
        try {
          server.kill("SIGKILL");
        } catch {
          // Already gone.
        }
        await server.status;
      }
      await sh("ip", "netns", "del", core).catch(() => {});
      await sh("ip", "netns", "del", host).catch(() => {});
      await Deno.remove(dir, { recursive: true });
    }
  },
});
