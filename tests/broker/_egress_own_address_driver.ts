/**
 * Run by `egress_own_address_test.ts` inside a network namespace the test created, whose veth
 * has the documentation addresses 198.51.100.5 and 2001:db8::5 (addresses the registries allow):
 * listeners bound to `0.0.0.0` and `::` are reached directly through the namespace's own
 * non-loopback addresses (taken from `Deno.networkInterfaces()`), then through the real egress
 * proxy, which must refuse them. Prints one JSON object.
 */
import { type EgressDecision, EgressProxy } from "../../src/broker/egress_proxy.ts";

let connections = 0;
const listen = (hostname: string) => {
  const listener = Deno.listen({ hostname, port: 0 });
  void (async () => {
    for await (const conn of listener) {
      connections++;
      conn.close();
    }
  })().catch(() => {});
  return listener;
};
const v4 = listen("0.0.0.0");
const v6 = listen("::");
const port4 = (v4.addr as Deno.NetAddr).port;
const port6 = (v6.addr as Deno.NetAddr).port;
const own = Deno.networkInterfaces()
  .filter((entry) => entry.name !== "lo" && !entry.address.startsWith("fe80"))
  .map((entry) => entry.address);
const own4 = own.find((address) => !address.includes(":"))!;
const own6 = own.find((address) => address.includes(":"))!;

// Control: the listeners answer through those addresses when nothing is in between.
for (const [hostname, port] of [[own4, port4], [own6, port6]] as const) {
  (await Deno.connect({ hostname, port })).close();
}
await new Promise((r) => setTimeout(r, 100));
const direct = connections;

const decisions: EgressDecision[] = [];
const proxy = await EgressProxy.start({ onDecision: (d) => decisions.push(d) });
const ask = async (head: string) => {
  const conn = await Deno.connect({ transport: "unix", path: proxy.socketPath });
  await conn.write(new TextEncoder().encode(head));
  const reply = new TextDecoder().decode(await new Response(conn.readable).arrayBuffer());
  return reply.split("\r\n")[0];
};
const replies = {
  connect4: await ask(`CONNECT ${own4}:${port4} HTTP/1.1\r\nHost: ${own4}:${port4}\r\n\r\n`),
  mapped: await ask(`CONNECT [::ffff:${own4}]:${port4} HTTP/1.1\r\n\r\n`),
  decimal: await ask(
    `CONNECT ${own4.split(".").reduce((n, o) => n * 256 + Number(o), 0)}:${port4} HTTP/1.1\r\n\r\n`,
  ),
  get4: await ask(`GET http://${own4}:${port4}/ HTTP/1.1\r\nHost: ${own4}\r\n\r\n`),
  connect6: await ask(`CONNECT [${own6}]:${port6} HTTP/1.1\r\n\r\n`),
};
await new Promise((r) => setTimeout(r, 100));
await proxy.close();
const through = connections - direct;
// Control: a proxy told this machine has no addresses lets the same request through, so it is
// the own-address rule (not the registries) that refused it above.
const blind = await EgressProxy.start({ hostAddresses: () => [] });
const conn = await Deno.connect({ transport: "unix", path: blind.socketPath });
await conn.write(new TextEncoder().encode(`CONNECT ${own4}:${port4} HTTP/1.1\r\n\r\n`));
const reply = new TextDecoder().decode(await new Response(conn.readable).arrayBuffer());
await new Promise((r) => setTimeout(r, 100));
await blind.close();
const control = { reply: reply.split("\r\n")[0], connections: connections - direct - through };
console.log(JSON.stringify({ own4, own6, direct, through, replies, decisions, control }));
Deno.exit(0);
