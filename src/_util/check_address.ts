/**
 * The egress address policy (design §2): which destination addresses odek's egress proxy and web
 * tools refuse. Pure; addresses are parsed with `ipaddr.js`.
 *
 * @module
 */
import ipaddr from "ipaddr.js";

/** The verdict on one address. `address` is its canonical form (IPv4-mapped IPv6 as IPv4). */
export type AddressCheck =
  | { allowed: true; address: string }
  | { allowed: false; address: string | null; reason: string };

type Range = [cidr: string, reason: string];

/** Refused IPv4 ranges (design §2, issue 3): exactly these, nothing else. */
const REFUSED_V4: readonly Range[] = [
  ["0.0.0.0/8", "this-network address (0.0.0.0/8)"],
  ["10.0.0.0/8", "private address (RFC 1918)"],
  ["100.64.0.0/10", "shared address space (CGNAT, 100.64.0.0/10)"],
  ["127.0.0.0/8", "loopback address"],
  ["169.254.0.0/16", "link-local address (cloud metadata included)"],
  ["172.16.0.0/12", "private address (RFC 1918)"],
  ["192.168.0.0/16", "private address (RFC 1918)"],
];

/** Refused IPv6 ranges that carry no IPv4 address. */
const REFUSED_V6: readonly Range[] = [
  ["::/128", "unspecified address (::)"],
  ["::1/128", "loopback address (::1)"],
  ["fc00::/7", "unique-local address (fc00::/7)"],
  ["fe80::/10", "link-local address (fe80::/10)"],
  // RFC 8215 local-use NAT64: the IPv4 address may sit anywhere, so the whole prefix is refused.
  ["64:ff9b:1::/48", "local-use NAT64 address (64:ff9b:1::/48)"],
];

/**
 * IPv6 ranges that embed an IPv4 address, with the 16-bit word where it starts; the embedded
 * address is checked against {@linkcode REFUSED_V4}. Teredo is handled apart (its client address
 * is stored inverted).
 */
const EMBEDDING_V6: readonly [cidr: string, firstWord: number, name: string][] = [
  ["::ffff:0:0/96", 6, "IPv4-mapped"],
  ["::/96", 6, "IPv4-compatible"],
  ["::ffff:0:0:0/96", 6, "IPv4-translated"],
  ["64:ff9b::/96", 6, "NAT64"],
  ["2002::/16", 1, "6to4"],
];

const parsedV4 = REFUSED_V4.map(([cidr, reason]) => [ipaddr.IPv4.parseCIDR(cidr), reason] as const);
const parsedV6 = REFUSED_V6.map(([cidr, reason]) => [ipaddr.IPv6.parseCIDR(cidr), reason] as const);
const parsedEmbeddings = EMBEDDING_V6.map(([cidr, word, name]) =>
  [ipaddr.IPv6.parseCIDR(cidr), word, name] as const
);
const TEREDO = ipaddr.IPv6.parseCIDR("2001::/32");

/**
 * Decide whether odek may connect to an IP address.
 *
 * Refused (source: design §2 and issue 3, "exactly the listed ranges"): `0.0.0.0/8`, RFC 1918
 * (`10/8`, `172.16/12`, `192.168/16`), CGNAT `100.64/10`, loopback `127/8`, link-local
 * `169.254/16` (cloud metadata), `::`, `::1`, unique-local `fc00::/7`, link-local `fe80::/10`,
 * the local-use NAT64 prefix `64:ff9b:1::/48`, and every IPv6 form that embeds a refused IPv4
 * address: IPv4-mapped `::ffff:a.b.c.d` (in any spelling, hex included), IPv4-compatible
 * `::a.b.c.d`, IPv4-translated `::ffff:0:a.b.c.d`, NAT64 `64:ff9b::/96`, 6to4 `2002::/16` and
 * Teredo `2001::/32` (the client address, stored inverted). Documentation ranges (`192.0.2/24`,
 * `198.51.100/24`, `203.0.113/24`, `2001:db8::/32`) and every other address are allowed.
 *
 * Anything that is not an IP address is refused. IPv4 is parsed as `inet_aton` does
 * (`0177.0.0.1`, `0x7f.1` and `2130706433` are all `127.0.0.1`), so no spelling slips through.
 *
 * @param ip an IPv4 or IPv6 address, optionally in brackets or with a zone id (`fe80::1%eth0`)
 * @returns `{ allowed: true, address }` or `{ allowed: false, address, reason }`, where
 *   `address` is the canonical form (`null` when `ip` does not parse)
 *
 * @example Metadata and mapped loopback are refused, a documentation address is not
 * ```ts
 * import { checkAddress } from "./check_address.ts";
 * if (checkAddress("169.254.169.254").allowed) throw new Error("metadata allowed");
 * if (checkAddress("::ffff:7f00:1").allowed) throw new Error("mapped loopback allowed");
 * if (!checkAddress("198.51.100.7").allowed) throw new Error("documentation address refused");
 * ```
 */
export function checkAddress(ip: string): AddressCheck {
  const text = ip.trim().replace(/^\[(.*)\]$/, "$1");
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(text);
  } catch {
    return { allowed: false, address: null, reason: `not an IP address: ${JSON.stringify(ip)}` };
  }
  if (parsed.kind() === "ipv6") {
    const v6 = parsed as ipaddr.IPv6;
    const address = v6.isIPv4MappedAddress() ? v6.toIPv4Address().toString() : v6.toString();
    for (const [range, reason] of parsedV6) {
      if (v6.match(range)) return { allowed: false, address, reason };
    }
    for (const [range, word, name] of parsedEmbeddings) {
      if (!v6.match(range)) continue;
      const embedded = v4FromWords(v6.parts[word], v6.parts[word + 1]);
      const reason = refusedV4(embedded);
      if (reason !== null) {
        return { allowed: false, address, reason: `${name} form of a ${reason} (${embedded})` };
      }
    }
    if (v6.match(TEREDO)) {
      const client = v4FromWords(v6.parts[6] ^ 0xffff, v6.parts[7] ^ 0xffff);
      const reason = refusedV4(client);
      if (reason !== null) {
        return { allowed: false, address, reason: `Teredo form of a ${reason} (${client})` };
      }
    }
    return { allowed: true, address };
  }
  const v4 = parsed as ipaddr.IPv4;
  const reason = refusedV4(v4);
  const address = v4.toString();
  return reason === null ? { allowed: true, address } : { allowed: false, address, reason };
}

function refusedV4(v4: ipaddr.IPv4): string | null {
  for (const [range, reason] of parsedV4) if (v4.match(range)) return reason;
  return null;
}

function v4FromWords(high: number, low: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}
