import assert from "node:assert/strict";
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
  ["2002:c633:6407::1", false],
  ["2001:0:4136:e378:8000:63bf:39cc:9bf8", false], // client 198.51.100.7
  // IPv6 allowed
  ["2001:db8::1", false],
  ["2001:db8:ffff::ffff", false],
  ["2606:4700:4700::1111", false],
  ["fec0::1", false], // deprecated site-local: not in the list
  ["ff02::1", false], // multicast: not in the list (TCP cannot connect to it)
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
