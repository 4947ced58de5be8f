import assert from "node:assert/strict";
import ipaddr from "ipaddr.js";
import { checkAddress } from "../../src/_util/check_address.ts";
import { matchAllowDomains } from "../../src/_util/match_allow_domains.ts";

/** [address, refused?, reason fragment] */
const TABLE: [string, boolean, string?][] = [
  // IPv4 refused ranges, both edges of each
  ["0.0.0.0", true, "this-network"],
  ["0.255.255.255", true, "this-network"],
  ["10.0.0.0", true, "RFC 1918"],
  ["10.255.255.255", true, "RFC 1918"],
  ["100.64.0.0", true, "CGNAT"],
  ["100.127.255.255", true, "CGNAT"],
  ["127.0.0.1", true, "loopback"],
  ["127.255.255.254", true, "loopback"],
  ["169.254.169.254", true, "metadata"],
  ["169.254.0.0", true, "link-local"],
  ["169.254.255.255", true, "link-local"],
  ["172.16.0.0", true, "RFC 1918"],
  ["172.31.255.255", true, "RFC 1918"],
  ["192.168.0.0", true, "RFC 1918"],
  ["192.168.255.255", true, "RFC 1918"],
  // IPv4 just outside them
  ["1.0.0.0", false],
  ["9.255.255.255", false],
  ["11.0.0.0", false],
  ["100.63.255.255", false],
  ["100.128.0.0", false],
  ["126.255.255.255", false],
  ["128.0.0.0", false],
  ["169.253.255.255", false],
  ["169.255.0.0", false],
  ["172.15.255.255", false],
  ["172.32.0.0", false],
  ["192.167.255.255", false],
  ["192.169.0.0", false],
  // just outside the other special-purpose blocks
  ["192.0.1.255", false],
  ["192.0.3.0", false],
  ["192.88.98.255", false],
  ["192.88.100.0", false],
  ["198.17.255.255", false],
  ["198.20.0.0", false],
  ["223.255.255.255", false],
  ["2001:200::", false],
  ["2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff", true, "IETF protocol assignment"],
  ["2003::1", false],
  ["3ffe:ffff::1", false],
  ["3fff:1000::", false],
  ["5eff:ffff::1", false],
  ["5f01::", false],
  ["febf:ffff::1", true, "link-local"],
  ["ff00::", true, "multicast"],
  // documentation and other public ranges are allowed
  ["192.0.2.1", false],
  ["198.51.100.7", false],
  ["203.0.113.9", false],
  ["8.8.8.8", false],
  // IPv4 spellings inet_aton accepts
  ["0177.0.0.1", true, "loopback"],
  ["0x7f.0.0.1", true, "loopback"],
  ["0x7f000001", true, "loopback"],
  ["2130706433", true, "loopback"],
  ["127.1", true, "loopback"],
  ["0", true, "this-network"],
  ["3232235521", true, "RFC 1918"],
  // IPv6 refused
  ["::", true, "unspecified"],
  ["::1", true, "loopback"],
  ["0:0:0:0:0:0:0:1", true, "loopback"],
  ["[::1]", true, "loopback"],
  ["fc00::1", true, "unique-local"],
  ["fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", true, "unique-local"],
  ["fe80::1", true, "link-local"],
  ["fe80::1%eth0", true, "link-local"],
  ["febf:ffff::1", true, "link-local"],
  ["fd00:ec2::254", true, "unique-local"],
  ["64:ff9b:1::a00:1", true, "local-use NAT64"],
  // IPv4-mapped, in every spelling
  ["::ffff:127.0.0.1", true, "loopback"],
  ["::ffff:7f00:1", true, "loopback"],
  ["::FFFF:7F00:0001", true, "loopback"],
  ["0:0:0:0:0:ffff:7f00:1", true, "loopback"],
  ["::ffff:169.254.169.254", true, "metadata"],
  ["::ffff:a9fe:a9fe", true, "metadata"],
  ["::ffff:10.1.2.3", true, "RFC 1918"],
  ["::ffff:0.0.0.0", true, "this-network"],
  ["[::ffff:127.0.0.1]", true, "loopback"],
  // other embeddings of refused IPv4
  ["::127.0.0.1", true, "loopback"], // ipaddr.js reads a dotted tail after :: as mapped
  ["::a9fe:a9fe", true, "IPv4-compatible"],
  ["::ffff:0:7f00:1", true, "IPv4-translated"],
  ["64:ff9b::7f00:1", true, "NAT64"],
  ["64:ff9b::169.254.169.254", true, "NAT64"],
  ["64:ff9b::c0a8:101", true, "NAT64"],
  ["2002:7f00:1::", true, "6to4"],
  ["2002:a9fe:a9fe::1", true, "6to4"],
  ["2002:c0a8:0101::", true, "6to4"],
  ["2001:0:4136:e378:8000:63bf:80ff:fffe", true, "Teredo"], // client 127.0.0.1
  // the same embeddings of public IPv4 are allowed
  ["::ffff:198.51.100.7", false],
  ["::ffff:c633:6407", false],
  ["64:ff9b::c633:6407", false],
  // 6to4 and Teredo are not globally reachable (IANA: N/A), whatever they embed
  ["2002:c633:6407::1", true, "6to4 address"],
  ["2001:0:4136:e378:8000:63bf:39cc:9bf8", true, "Teredo address"], // client 198.51.100.7
  // IPv6 allowed
  ["2001:db8::1", false],
  ["2001:db8:ffff::ffff", false],
  ["2606:4700:4700::1111", false],
  ["fec0::1", true, "site-local"],
  ["ff02::1", true, "multicast"],
  // not addresses
  ["", true, "not an IP address"],
  ["localhost", true, "not an IP address"],
  ["example.com", true, "not an IP address"],
  ["127.0.0.1.nip.io", true, "not an IP address"],
  ["1.2.3.4.5", true, "not an IP address"],
  ["::ffff:1.2.3.256", true, "not an IP address"],
  ["[127.0.0.1", true, "not an IP address"],
];

Deno.test("checkAddress() decides every row of the address table", async (t) => {
  for (const [address, refused, fragment] of TABLE) {
    await t.step(`${address || "(empty)"} → ${refused ? "refused" : "allowed"}`, () => {
      const check = checkAddress(address);
      assert.equal(check.allowed, !refused, JSON.stringify(check));
      if (!check.allowed && fragment) assert.ok(check.reason.includes(fragment), check.reason);
    });
  }
});

Deno.test("checkAddress() reports the canonical address, mapped IPv6 as IPv4", () => {
  assert.deepEqual(checkAddress("::ffff:7f00:1"), {
    allowed: false,
    address: "127.0.0.1",
    reason: "IPv4-mapped form of a loopback address (127.0.0.1)",
  });
  assert.deepEqual(checkAddress("0x7f.1"), {
    allowed: false,
    address: "127.0.0.1",
    reason: "loopback address",
  });
  assert.deepEqual(checkAddress("::ffff:c633:6407"), { allowed: true, address: "198.51.100.7" });
  assert.deepEqual(checkAddress("2001:DB8:0:0::1"), { allowed: true, address: "2001:db8::1" });
  assert.equal(checkAddress("nope").allowed ? "" : checkAddress("nope").address, null);
});

Deno.test("every refused /8 … /16 IPv4 range refuses each of its 256 sub-blocks", () => {
  const blocks: [string, number][] = [["0", 8], ["10", 8], ["127", 8], ["169.254", 16], [
    "192.168",
    16,
  ]];
  for (const [prefix, bits] of blocks) {
    for (let i = 0; i < 256; i++) {
      const address = bits === 8 ? `${prefix}.${i}.${255 - i}.1` : `${prefix}.${i}.${255 - i}`;
      assert.equal(checkAddress(address).allowed, false, address);
      const mapped = `::ffff:${address}`;
      assert.equal(checkAddress(mapped).allowed, false, mapped);
    }
  }
  for (let second = 0; second < 256; second++) {
    const inside = second >= 16 && second < 32;
    assert.equal(checkAddress(`172.${second}.0.1`).allowed, !inside, `172.${second}.0.1`);
    const cgnat = second >= 64 && second < 128;
    assert.equal(checkAddress(`100.${second}.0.1`).allowed, !cgnat, `100.${second}.0.1`);
  }
});

Deno.test("matchAllowDomains() allows a domain and names below it, nothing else", async (t) => {
  const table: [string, string[], boolean][] = [
    ["example.com", [], true],
    ["198.51.100.7", [], true],
    ["example.com", ["example.com"], true],
    ["EXAMPLE.com.", ["example.com"], true],
    ["api.example.com", ["example.com"], true],
    ["a.b.example.com", ["*.example.com"], true],
    ["badexample.com", ["example.com"], false],
    ["example.com.evil.test", ["example.com"], false],
    ["example.org", ["example.com"], false],
    ["198.51.100.7", ["example.com"], false],
    ["198.51.100.7", ["198.51.100.7"], true],
    ["198.51.100.7", ["100.7"], false],
    ["[2001:db8::1]", ["2001:db8::1"], true],
    ["", ["example.com"], false],
    ["example.com", [""], false],
  ];
  for (const [host, list, allowed] of table) {
    await t.step(`${host || "(empty)"} with [${list.join(", ")}] → ${allowed}`, () => {
      assert.equal(matchAllowDomains(host, list), allowed);
    });
  }
});

/**
 * The IANA IPv4 and IPv6 Special-Purpose Address Registries, row by row (plus multicast and the
 * deprecated site-local block): [block, refused?, reason fragment]. Refused: every block not
 * globally reachable but the four documentation ranges; allowed: the globally reachable ones.
 */
const REGISTRY: [string, boolean, string?][] = [
  // IPv4 Special-Purpose Address Registry
  ["0.0.0.0/8", true, "this-network"],
  ["0.0.0.0/32", true, "this-network"],
  ["10.0.0.0/8", true, "RFC 1918"],
  ["100.64.0.0/10", true, "CGNAT"],
  ["127.0.0.0/8", true, "loopback"],
  ["169.254.0.0/16", true, "link-local"],
  ["172.16.0.0/12", true, "RFC 1918"],
  ["192.0.0.0/24", true, "IETF protocol assignment"],
  ["192.0.0.0/29", true, "IETF protocol assignment"], // IPv4 service continuity prefix
  ["192.0.0.8/32", true, "IETF protocol assignment"], // IPv4 dummy address
  ["192.0.0.9/32", false], // PCP anycast: globally reachable
  ["192.0.0.10/32", false], // TURN anycast: globally reachable
  ["192.0.0.170/32", true, "IETF protocol assignment"], // NAT64/DNS64 discovery
  ["192.0.0.171/32", true, "IETF protocol assignment"],
  ["192.0.2.0/24", false], // documentation (TEST-NET-1): allowed for test hosts
  ["192.31.196.0/24", false], // AS112-v4: globally reachable
  ["192.52.193.0/24", false], // AMT: globally reachable
  ["192.88.99.0/24", true, "6to4 relay"], // deprecated
  ["192.168.0.0/16", true, "RFC 1918"],
  ["192.175.48.0/24", false], // AS112 direct delegation: globally reachable
  ["198.18.0.0/15", true, "benchmarking"],
  ["198.51.100.0/24", false], // documentation (TEST-NET-2)
  ["203.0.113.0/24", false], // documentation (TEST-NET-3)
  ["240.0.0.0/4", true, "reserved"],
  ["255.255.255.255/32", true, "limited broadcast"],
  ["224.0.0.0/4", true, "multicast"],
  // IPv6 Special-Purpose Address Registry
  ["::1/128", true, "loopback"],
  ["::/128", true, "unspecified"],
  ["64:ff9b:1::/48", true, "local-use NAT64"],
  ["100::/64", true, "discard-only"],
  ["100:0:0:1::/64", true, "dummy"],
  ["2001::/23", true, "IETF protocol assignment"],
  ["2001::/32", true, "Teredo"],
  ["2001:1::1/128", false], // PCP anycast
  ["2001:1::2/128", false], // TURN anycast
  ["2001:1::3/128", false], // DNS-SD SRP anycast
  ["2001:2::/48", true, "benchmarking"],
  ["2001:3::/32", false], // AMT
  ["2001:4:112::/48", false], // AS112-v6
  ["2001:10::/28", true, "ORCHID"],
  ["2001:20::/28", false], // ORCHIDv2
  ["2001:30::/28", false], // drone remote ID DETs
  ["2001:db8::/32", false], // documentation: allowed for test hosts
  ["2002::/16", true, "6to4"],
  ["2620:4f:8000::/48", false], // AS112 direct delegation
  ["3fff::/20", true, "documentation address outside"],
  ["5f00::/16", true, "segment-routing"],
  ["fc00::/7", true, "unique-local"],
  ["fe80::/10", true, "link-local"],
  ["fec0::/10", true, "site-local"],
  ["ff00::/8", true, "multicast"],
];

/** First and last address of a block (IPv4 or IPv6). */
function edges(cidr: string): [string, string] {
  const [network, bits] = ipaddr.parseCIDR(cidr);
  if (network.kind() === "ipv4") {
    const first = ipaddr.IPv4.networkAddressFromCIDR(cidr);
    const last = ipaddr.IPv4.broadcastAddressFromCIDR(cidr);
    return [first.toString(), last.toString()];
  }
  const parts = (network as ipaddr.IPv6).parts.slice();
  const last = parts.map((word, i) => {
    const keep = Math.max(0, Math.min(16, bits - 16 * i));
    return keep === 16 ? word : (word | (0xffff >> keep)) & 0xffff;
  });
  return [new ipaddr.IPv6(parts).toString(), new ipaddr.IPv6(last).toString()];
}

/** The most specific registry row an address falls in. */
function rowOf(address: string): [string, boolean, string?] | undefined {
  const parsed = ipaddr.parse(address);
  return REGISTRY.filter(([cidr]) => {
    const range = ipaddr.parseCIDR(cidr);
    return range[0].kind() === parsed.kind() && parsed.match(range);
  }).sort((a, b) => ipaddr.parseCIDR(b[0])[1] - ipaddr.parseCIDR(a[0])[1])[0];
}

Deno.test("checkAddress() follows the IANA special-purpose registries, row by row", async (t) => {
  for (const [cidr, refused] of REGISTRY) {
    await t.step(`${cidr} → ${refused ? "refused" : "allowed"}`, () => {
      for (const address of edges(cidr)) {
        // An edge may sit in a more specific row (192.0.0.8/32 inside 192.0.0.0/24): that row wins.
        const [, expectRefused, expectFragment] = rowOf(address)!;
        const check = checkAddress(address);
        assert.equal(check.allowed, !expectRefused, `${address}: ${JSON.stringify(check)}`);
        if (!check.allowed && expectFragment) {
          assert.ok(check.reason.includes(expectFragment), `${address}: ${check.reason}`);
        }
        if (ipaddr.parse(address).kind() === "ipv4") {
          // In every IPv6 spelling the proxy reads as IPv4, and through NAT64.
          const v4 = ipaddr.IPv4.parse(address);
          const hex = v4.toIPv4MappedAddress().toString();
          for (const spelled of [`::ffff:${address}`, hex, hex.toUpperCase(), `[${hex}]`]) {
            assert.equal(checkAddress(spelled).allowed, !expectRefused, spelled);
          }
          const [a, b, c, d] = v4.octets;
          const nat64 = `64:ff9b::${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
          assert.equal(checkAddress(nat64).allowed, !expectRefused, nat64);
          const decimal = String(((a << 24) >>> 0) + (b << 16) + (c << 8) + d);
          assert.equal(checkAddress(decimal).allowed, !expectRefused, decimal);
        }
      }
    });
  }
});

Deno.test("checkAddress() refuses the host's own addresses in every spelling", async (t) => {
  const hostAddresses = ["198.51.100.9", "2001:db8:0:0:0:0:0:9", "fe80::1%eth0"];
  const table: [string, boolean][] = [
    ["198.51.100.9", true],
    ["::ffff:198.51.100.9", true],
    ["::ffff:c633:6409", true],
    ["3325256713", true], // decimal
    ["0306.063.0144.011", true], // octal
    ["0xc6.0x33.0x64.0x9", true],
    ["64:ff9b::c633:6409", true], // NAT64
    ["2001:db8::9", true],
    ["2001:DB8:0000::0009", true],
    ["[2001:db8::9]", true],
    ["198.51.100.10", false], // a neighbour is another host
    ["2001:db8::a", false],
  ];
  for (const [address, refused] of table) {
    await t.step(`${address} → ${refused ? "refused" : "allowed"}`, () => {
      const check = checkAddress(address, { hostAddresses });
      assert.equal(check.allowed, !refused, JSON.stringify(check));
      if (!check.allowed) assert.match(check.reason, /host interface address/);
      assert.equal(checkAddress(address).allowed, true, "without the host list it is allowed");
    });
  }
});
