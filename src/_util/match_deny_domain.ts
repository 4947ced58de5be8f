/**
 * Deny rules on hosts (`deny.domains`), shared by the classifier and the egress proxy.
 *
 * @module
 */

/**
 * The first pattern that denies `host`: `*` denies every host (also an unknown one, `""`);
 * `*.example.com` denies `example.com` and every name below it; any other pattern only the host
 * equal to it. Names compare case-insensitively, without a trailing dot or IPv6 brackets.
 *
 * @param host the destination host (`api.example.com`, `198.51.100.7`, `""` when unknown)
 * @param patterns the deny patterns
 * @returns the pattern that denies it, or `undefined`
 *
 * @example
 * ```ts
 * import { matchDenyDomain } from "./match_deny_domain.ts";
 * if (matchDenyDomain("API.example.com.", ["*.example.com"]) !== "*.example.com") throw new Error();
 * if (matchDenyDomain("api.example.com", ["example.com"]) !== undefined) throw new Error("exact only");
 * if (matchDenyDomain("badexample.com", ["*.example.com"]) !== undefined) throw new Error("suffix");
 * ```
 */
export function matchDenyDomain(host: string, patterns: readonly string[]): string | undefined {
  const name = normalize(host.replace(/^\[(.*)\]$/, "$1"));
  return patterns.find((pattern) => {
    const p = normalize(pattern);
    if (p === "*") return true;
    if (name === "") return false;
    if (p.startsWith("*.")) {
      const suffix = p.slice(2);
      return name === suffix || name.endsWith(`.${suffix}`);
    }
    return name === p;
  });
}

function normalize(name: string): string {
  return name.trim().toLowerCase().replace(/\.$/, "");
}
