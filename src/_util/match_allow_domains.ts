/**
 * The optional domain allow-list of egress (`network.allowDomains`).
 *
 * @module
 */

/**
 * Whether a destination host passes the domain allow-list. An empty list allows every host (the
 * address policy still applies). An entry `example.com` allows `example.com` and every name below
 * it (`api.example.com`), never `badexample.com`; `*.example.com` is the same entry. Names are
 * compared case-insensitively, without a trailing dot. An IP literal passes only an entry equal
 * to it. The list narrows egress; it never lets a refused address through.
 *
 * @param host the destination host as the client named it (`api.example.com`, `198.51.100.7`)
 * @param allowDomains the configured entries
 * @returns true when the host may be contacted
 *
 * @example
 * ```ts
 * import { matchAllowDomains } from "./match_allow_domains.ts";
 * if (!matchAllowDomains("API.example.com.", ["example.com"])) throw new Error("refused");
 * if (matchAllowDomains("badexample.com", ["example.com"])) throw new Error("allowed");
 * if (!matchAllowDomains("anything.test", [])) throw new Error("empty list refused");
 * ```
 */
export function matchAllowDomains(host: string, allowDomains: readonly string[]): boolean {
  if (allowDomains.length === 0) return true;
  const name = normalize(host.replace(/^\[(.*)\]$/, "$1"));
  if (name === "") return false;
  const literal = name.includes(":") || /^[0-9.]+$/.test(name);
  return allowDomains.some((entry) => {
    const domain = normalize(entry.replace(/^\*\./, ""));
    if (domain === "") return false;
    return name === domain || (!literal && name.endsWith(`.${domain}`));
  });
}

function normalize(name: string): string {
  return name.trim().toLowerCase().replace(/\.$/, "");
}
