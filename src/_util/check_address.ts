/**
 * The egress address policy (design §2, issue 12): which destination addresses odek's egress
 * proxy and web tools refuse. Pure; addresses are parsed with `ipaddr.js`.
 *
 * @module
 */
import ipaddr from "ipaddr.js";

/** The verdict on one address. `address` is its canonical form (IPv4-mapped IPv6 as IPv4). */
export type AddressCheck =
  | { allowed: true; address: string }
  | { allowed: false; address: string | null; reason: string };

/** Options for {@linkcode checkAddress}. */
export interface CheckAddressOptions {
  /**
   * This machine's own interface addresses (`Deno.networkInterfaces()`, read again for every
   * decision): each is refused in every spelling, so a service bound to `0.0.0.0` on the host
   * is not reachable through the host's own non-loopback address. @default none
   */
  hostAddresses?: readonly string[];
}

type Range = [cidr: string, reason: string];

/**
 * Blocks of the IANA special-purpose registries that are globally reachable inside a larger
 * refused block: allowed. Source: IANA IPv4 and IPv6 Special-Purpose Address Registries
 * ("Globally Reachable: True").
 */
const GLOBAL_V4 = ["192.0.0.9/32", "192.0.0.10/32"];
const GLOBAL_V6 = [
  "2001:1::1/128",
  "2001:1::2/128",
  "2001:1::3/128",
  "2001:3::/32",
  "2001:4:112::/48",
  "2001:20::/28",
  "2001:30::/28",
];

/** The documentation ranges stay allowed: the test hosts of network namespaces use them. */
const DOCUMENTATION_V4 = ["192.0.2.0/24", "198.51.100.0/24", "203.0.113.0/24"];
const DOCUMENTATION_V6 = ["2001:db8::/32"];

/**
 * Refused IPv4 blocks: every entry of the IANA IPv4 Special-Purpose Address Registry that is not
 * globally reachable (but the documentation ranges), and multicast and limited broadcast.
 */
const REFUSED_V4: readonly Range[] = [
  ["0.0.0.0/8", "this-network address (0.0.0.0/8)"],
  ["10.0.0.0/8", "private address (RFC 1918)"],
  ["100.64.0.0/10", "shared address space (CGNAT, 100.64.0.0/10)"],
  ["127.0.0.0/8", "loopback address"],
  ["169.254.0.0/16", "link-local address (cloud metadata included)"],
  ["172.16.0.0/12", "private address (RFC 1918)"],
  ["192.0.0.0/24", "IETF protocol assignment (192.0.0.0/24)"],
  ["192.88.99.0/24", "deprecated 6to4 relay anycast address (192.88.99.0/24)"],
  ["192.168.0.0/16", "private address (RFC 1918)"],
  ["198.18.0.0/15", "benchmarking address (198.18.0.0/15)"],
  ["224.0.0.0/4", "multicast address (224.0.0.0/4)"],
  ["240.0.0.0/4", "reserved address (240.0.0.0/4, limited broadcast included)"],
];

/**
 * Refused IPv6 blocks that carry no IPv4 address: every entry of the IANA IPv6 Special-Purpose
 * Address Registry that is not globally reachable (but documentation), multicast and the
 * deprecated site-local block.
 */
const REFUSED_V6: readonly Range[] = [
  ["::/128", "unspecified address (::)"],
  ["::1/128", "loopback address (::1)"],
  // RFC 8215 local-use NAT64: the IPv4 address may sit anywhere, so the whole prefix is refused.
  ["64:ff9b:1::/48", "local-use NAT64 address (64:ff9b:1::/48)"],
  ["100::/64", "discard-only address (100::/64)"],
  ["100:0:0:1::/64", "dummy address (100:0:0:1::/64)"],
  ["2001:2::/48", "benchmarking address (2001:2::/48)"],
  ["2001:10::/28", "deprecated ORCHID address (2001:10::/28)"],
  ["3fff::/20", "documentation address outside 2001:db8::/32 (3fff::/20)"],
  ["5f00::/16", "segment-routing SID (5f00::/16)"],
  ["fc00::/7", "unique-local address (fc00::/7)"],
  ["fe80::/10", "link-local address (fe80::/10)"],
  ["fec0::/10", "deprecated site-local address (fec0::/10)"],
  ["ff00::/8", "multicast address (ff00::/8)"],
];

/**
 * IPv6 blocks that embed an IPv4 address, with the 16-bit word where it starts; the embedded
 * address is checked as IPv4. `whole` blocks are refused even when it is public (the registry
 * marks them not globally reachable); the others follow their IPv4 address. Teredo is handled
 * apart (its client address is stored inverted).
 */
const EMBEDDING_V6: readonly [cidr: string, firstWord: number, name: string, whole: boolean][] = [
  ["::ffff:0:0/96", 6, "IPv4-mapped", false],
  ["::/96", 6, "IPv4-compatible", false],
  ["::ffff:0:0:0/96", 6, "IPv4-translated", false],
  ["64:ff9b::/96", 6, "NAT64", false],
  ["2002::/16", 1, "6to4", true],
];

const parse4 = (cidrs: readonly string[]) => cidrs.map((c) => ipaddr.IPv4.parseCIDR(c));
const parse6 = (cidrs: readonly string[]) => cidrs.map((c) => ipaddr.IPv6.parseCIDR(c));
const allowedV4 = parse4([...GLOBAL_V4, ...DOCUMENTATION_V4]);
const allowedV6 = parse6([...GLOBAL_V6, ...DOCUMENTATION_V6]);
const parsedV4 = REFUSED_V4.map(([cidr, reason]) => [ipaddr.IPv4.parseCIDR(cidr), reason] as const);
const parsedV6 = REFUSED_V6.map(([cidr, reason]) => [ipaddr.IPv6.parseCIDR(cidr), reason] as const);
const parsedEmbeddings = EMBEDDING_V6.map(([cidr, word, name, whole]) =>
  [ipaddr.IPv6.parseCIDR(cidr), word, name, whole] as const
);
const TEREDO = ipaddr.IPv6.parseCIDR("2001::/32");
const HOST_REASON = "host interface address";
const IETF_V6 = ipaddr.IPv6.parseCIDR("2001::/23");

/**
 * Decide whether odek may connect to an IP address.
 *
 * Refused (source: the IANA IPv4 and IPv6 Special-Purpose Address Registries, issue 12): every
 * block they list as not globally reachable — `0.0.0.0/8`, RFC 1918, CGNAT `100.64/10`,
 * loopback, link-local `169.254/16` (cloud metadata), `192.0.0.0/24` (but the globally reachable
 * `192.0.0.9` and `192.0.0.10`), the deprecated `192.88.99.0/24`, benchmarking `198.18/15`,
 * reserved `240/4` with limited broadcast; `::`, `::1`, local-use NAT64 `64:ff9b:1::/48`,
 * discard-only `100::/64`, the dummy prefix `100:0:0:1::/64`, `2001::/23` (but its globally
 * reachable blocks: PCP, TURN and DNS-SD SRP anycast, AMT, AS112, ORCHIDv2, drone DETs),
 * `3fff::/20`, SRv6 `5f00::/16`, unique-local `fc00::/7`, link-local `fe80::/10` — plus
 * multicast (`224/4`, `ff00::/8`), the deprecated site-local `fec0::/10`, the whole of 6to4
 * `2002::/16` and Teredo `2001::/32`, the host's own interface addresses (`hostAddresses`), and
 * every IPv6 form embedding a refused IPv4 address: IPv4-mapped `::ffff:a.b.c.d` (in any
 * spelling), IPv4-compatible, IPv4-translated and NAT64 `64:ff9b::/96`. The documentation ranges
 * (`192.0.2/24`, `198.51.100/24`, `203.0.113/24`, `2001:db8::/32`) stay allowed, as does every
 * other address.
 *
 * Anything that is not an IP address is refused. IPv4 is parsed as `inet_aton` does
 * (`0177.0.0.1`, `0x7f.1` and `2130706433` are all `127.0.0.1`), so no spelling slips through.
 *
 * @param ip an IPv4 or IPv6 address, optionally in brackets or with a zone id (`fe80::1%eth0`)
 * @param options the host's own addresses
 * @returns `{ allowed: true, address }` or `{ allowed: false, address, reason }`, where
 *   `address` is the canonical form (`null` when `ip` does not parse)
 *
 * @example Metadata, mapped loopback and the host's own address are refused
 * ```ts
 * import { checkAddress } from "./check_address.ts";
 * if (checkAddress("169.254.169.254").allowed) throw new Error("metadata allowed");
 * if (checkAddress("::ffff:7f00:1").allowed) throw new Error("mapped loopback allowed");
 * if (!checkAddress("198.51.100.7").allowed) throw new Error("documentation address refused");
 * if (checkAddress("198.51.100.7", { hostAddresses: ["198.51.100.7"] }).allowed) {
 *   throw new Error("the host's own address allowed");
 * }
 * ```
 */
export function checkAddress(ip: string, options: CheckAddressOptions = {}): AddressCheck {
  const check = checkRegistries(ip, options);
  if (!check.allowed) return check;
  const own = (options.hostAddresses ?? []).some((address) => {
    const parsed = parseAddress(address);
    return parsed !== null && canonicalOf(parsed) === check.address;
  });
  return own
    ? {
      allowed: false,
      address: check.address,
      reason: `${HOST_REASON} (one of this machine's own)`,
    }
    : check;
}

/** The registries' verdict (and the host's addresses embedded in IPv6 forms). */
function checkRegistries(ip: string, options: CheckAddressOptions): AddressCheck {
  const parsed = parseAddress(ip);
  if (parsed === null) {
    return { allowed: false, address: null, reason: `not an IP address: ${JSON.stringify(ip)}` };
  }
  const host = new Set<string>();
  for (const own of options.hostAddresses ?? []) {
    const canonical = parseAddress(own);
    if (canonical !== null) host.add(canonicalOf(canonical));
  }
  const address = canonicalOf(parsed);
  if (parsed.kind() === "ipv4") {
    const reason = refusedV4(parsed as ipaddr.IPv4, host);
    return reason === null ? { allowed: true, address } : { allowed: false, address, reason };
  }
  const v6 = parsed as ipaddr.IPv6;
  for (const [range, reason] of parsedV6) {
    if (v6.match(range)) return { allowed: false, address, reason };
  }
  for (const [range, word, name, whole] of parsedEmbeddings) {
    if (!v6.match(range)) continue;
    const embedded = v4FromWords(v6.parts[word], v6.parts[word + 1]);
    const reason = refusedV4(embedded, host);
    if (reason !== null) {
      return { allowed: false, address, reason: `${name} form of a ${reason} (${embedded})` };
    }
    if (whole) {
      return { allowed: false, address, reason: `${name} address (not globally reachable)` };
    }
    return { allowed: true, address };
  }
  if (v6.match(TEREDO)) {
    const client = v4FromWords(v6.parts[6] ^ 0xffff, v6.parts[7] ^ 0xffff);
    const reason = refusedV4(client, host);
    return {
      allowed: false,
      address,
      reason: reason !== null
        ? `Teredo form of a ${reason} (${client})`
        : "Teredo address (2001::/32, not globally reachable)",
    };
  }
  if (allowedV6.some((range) => v6.match(range))) return { allowed: true, address };
  if (v6.match(IETF_V6)) {
    return { allowed: false, address, reason: "IETF protocol assignment (2001::/23)" };
  }
  return { allowed: true, address };
}

function parseAddress(ip: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  const text = ip.trim().replace(/^\[(.*)\]$/, "$1");
  try {
    return ipaddr.parse(text);
  } catch {
    return null;
  }
}

/** The canonical form: IPv4 dotted, IPv4-mapped IPv6 as IPv4, IPv6 compressed without zone. */
function canonicalOf(parsed: ipaddr.IPv4 | ipaddr.IPv6): string {
  if (parsed.kind() === "ipv4") return parsed.toString();
  const v6 = parsed as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().toString();
  return new ipaddr.IPv6(v6.parts).toString();
}

function refusedV4(v4: ipaddr.IPv4, host: ReadonlySet<string>): string | null {
  if (!allowedV4.some((range) => v4.match(range))) {
    for (const [range, reason] of parsedV4) if (v4.match(range)) return reason;
  }
  return host.has(v4.toString()) ? HOST_REASON : null;
}

function v4FromWords(high: number, low: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}
