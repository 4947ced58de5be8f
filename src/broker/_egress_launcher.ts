/**
 * The launcher of a program granted network (design §2): bash, run inside the sandbox as
 * `bash -c EGRESS_LAUNCHER odek-egress <n> <forwarder argv: n words> <program argv…>`.
 *
 * It starts the egress forwarder (from `/`, with a cleared environment and a private `DENO_DIR`
 * on the sandbox's own `/dev/shm`, so nothing in the workspace or the shared scratch configures
 * it), waits for the port line it prints once it listens on `127.0.0.1`, points `HTTP_PROXY`,
 * `HTTPS_PROXY`, `ALL_PROXY` and their lowercase forms at it — with the call's egress credential
 * from {@linkcode EGRESS_TOKEN_ENV} as the URL's password, the variable itself removed — and
 * replaces itself with the program. The forwarder lives on in the sandbox's pid namespace and
 * dies with the program. When it does not start, the command fails with exit code 125 and says
 * so on stderr.
 *
 * @module
 */
export const EGRESS_LAUNCHER = [
  ": odek-egress",
  'n=$1; shift; fwd=("${@:1:$n}"); shift "$n"',
  "exec 3< <(cd / && exec env -i DENO_DIR=/dev/shm/.odek-egress-deno DENO_NO_UPDATE_CHECK=1 " +
  'DENO_NO_PACKAGE_JSON=1 "${fwd[@]}" 2>/dev/null)',
  "if ! IFS= read -r port <&3 || [[ ! $port =~ ^[0-9]+$ ]]; then " +
  'echo "odek: the egress forwarder did not start, so this command has no network" >&2; ' +
  "exit 125; fi",
  "exec 3<&-",
  "t=${ODEK_EGRESS_TOKEN-}; unset ODEK_EGRESS_TOKEN",
  'proxy="http://${t:+odek:$t@}127.0.0.1:$port"',
  'export HTTP_PROXY="$proxy" HTTPS_PROXY="$proxy" ALL_PROXY="$proxy" ' +
  'http_proxy="$proxy" https_proxy="$proxy" all_proxy="$proxy"',
  "unset n fwd port proxy t",
  'exec "$@"',
].join("\n");

/** The variable the launcher reads the call's egress credential from (and removes). */
export const EGRESS_TOKEN_ENV = "ODEK_EGRESS_TOKEN";
