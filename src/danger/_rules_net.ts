/**
 * Verbs that reach the network, with the host as the part's target. Their file options are
 * classified too: `curl -o` writes, `curl -d @file` reads (a secret read is `system_write`),
 * `ssh -o ProxyCommand=`, `rsync -e`, `socat EXEC:` and `nc -e` run local commands.
 *
 * @module
 */
import { has, parseOptions, type Rule, type RuleInput } from "./_rule.ts";
import { urlHosts } from "./_rules_exec.ts";

function hostOf(word: string): string {
  const url = urlHosts(word)[0];
  if (url) return url;
  return word.replace(/^[^@]*@/, "").replace(/[:/].*$/, "").toLowerCase();
}

/** The port a URL or `host:port` operand names (its scheme's default for a URL without one). */
function portOf(word: string): number | undefined {
  const url = /^([a-z][a-z0-9+.-]*):\/\/(?:[^@/]*@)?(\[[^\]]*\]|[^:/?#]*)(?::(\d{1,5}))?/i.exec(
    word,
  );
  if (url) {
    if (url[3] !== undefined) return Number(url[3]);
    return ({ http: 80, https: 443, ftp: 21 } as Record<string, number>)[url[1].toLowerCase()];
  }
  const bare = /^(?:[^@/]*@)?(\[[^\]]*\]|[^:/]+):(\d{1,5})(?:\/|$)/.exec(word);
  return bare ? Number(bare[2]) : undefined;
}

function networkTo(input: RuleInput, operands: string[]): void {
  const targets: [string, number | undefined][] = operands.flatMap((o) =>
    urlHosts(o).length > 0
      ? urlHosts(o).map((h) => [h, portOf(o)] as [string, number | undefined])
      : []
  );
  if (targets.length === 0 && operands[0] !== undefined) {
    targets.push([hostOf(operands[0]), portOf(operands[0])]);
  }
  if (targets.length === 0) input.parts.network("");
  const seen = new Set<string>();
  for (const [host, port] of targets) {
    if (seen.has(`${host}:${port}`)) continue;
    seen.add(`${host}:${port}`);
    input.parts.network(host, undefined, port);
  }
}

/** Only a version or help flag (`--version`, `-V`, `--help`, `-h`, `version`, `help`). */
function versionOrHelp(args: string[]): boolean {
  return args.length > 0 && args.length <= 2 &&
    args.every((a) => /^(--version|-V|--help|-h|-\?|version|help|--manual|-M)$/.test(a));
}

/** curl's short options that take a value, getopt style (`o` is `-o FILE`). */
const CURL_SHORT_VALUED = "AbcCdDeEFHKmoPQrTuUwxXyYz";
const CURL_VALUED = [...CURL_SHORT_VALUED].map((c) => `-${c}`).concat((
  "--output --data --data-ascii --data-binary --data-raw --data-urlencode --json --form " +
  "--form-string --upload-file --header --request --user --user-agent --referer --cookie " +
  "--cookie-jar --config --url --proxy --write-out --max-time --connect-timeout --retry --range " +
  "--cert --key --cacert --capath --dump-header --trace --trace-ascii --stderr --time-cond " +
  "--resolve --connect-to --limit-rate --continue-at --interface --unix-socket --output-dir " +
  "--quote --mail-from --mail-rcpt --variable --ftp-port --retry-delay --retry-max-time " +
  "--max-filesize --proxy-user --oauth2-bearer --aws-sigv4 --local-port --dns-servers --netrc-file"
).split(/\s+/));

function curl(input: RuleInput): void {
  const { parts } = input;
  const options = parseOptions(input.args, CURL_VALUED);
  const values = (...names: string[]) => names.flatMap((n) => options.values.get(n) ?? []);
  const urls = [...values("--url"), ...options.operands];
  // Nothing to fetch (`curl --version`, `curl --help`): curl touches no network.
  if (urls.length === 0 && values("-K", "--config").length === 0) {
    return parts.add("read", "prints its version or help");
  }
  networkTo(input, urls);
  for (const out of values("-o", "--output", "-D", "--dump-header", "-c", "--cookie-jar")) {
    if (out !== "-") parts.write(out);
  }
  for (const out of values("--trace", "--trace-ascii", "--stderr", "--output-dir")) {
    parts.write(out);
  }
  if (has(options, "-O", "--remote-name", "-J", "--remote-name-all")) parts.write(".");
  const bodies = values(
    "-d",
    "--data",
    "--data-ascii",
    "--data-binary",
    "--data-urlencode",
    "--json",
  )
    .concat(values("-F", "--form", "-T", "--upload-file", "-K", "--config", "--netrc-file"));
  for (const body of bodies) {
    const file = /^(?:[^=@<]*=)?[@<](.+)$/.exec(body)?.[1] ??
      (values("-T", "--upload-file", "-K", "--config").includes(body) ? body : undefined);
    if (file !== undefined && file !== "-") parts.read(file);
  }
}

function wget(input: RuleInput): void {
  const valued = ["-O", "--output-document", "-o", "--output-file", "-a", "--append-output", "-P"]
    .concat(["--directory-prefix", "-i", "--input-file", "--post-file", "--body-file", "-e"])
    .concat(["--execute", "--header", "-U", "--user-agent", "--user", "--password", "-t", "-T"])
    .concat(["-w", "--load-cookies", "--save-cookies", "--post-data", "--method", "-Q", "-l"]);
  const options = parseOptions(input.args, valued);
  const values = (...names: string[]) => names.flatMap((n) => options.values.get(n) ?? []);
  if (options.operands.length === 0 && values("-i", "--input-file").length === 0) {
    return input.parts.add("read", "prints its version or help");
  }
  networkTo(input, options.operands);
  const outputs = values("-O", "--output-document");
  for (const out of outputs) if (out !== "-") input.parts.write(out);
  for (const out of values("-o", "--output-file", "-a", "--append-output", "--save-cookies")) {
    input.parts.write(out);
  }
  const dirs = values("-P", "--directory-prefix");
  for (const dir of dirs) input.parts.write(dir);
  if (outputs.length === 0 && dirs.length === 0 && !has(options, "--spider")) {
    input.parts.write(".");
  }
  for (const file of values("-i", "--input-file", "--post-file", "--body-file", "--load-cookies")) {
    input.parts.read(file);
  }
  if (values("-e", "--execute").length > 0) {
    input.parts.add("code_execution", "runs wgetrc commands");
  }
}

/** `ssh`/`scp`/`sftp`: the host; `-o ProxyCommand=…`/`LocalCommand=…` run locally. */
function ssh(input: RuleInput): void {
  const valued = [
    "-b",
    "-c",
    "-D",
    "-E",
    "-e",
    "-F",
    "-I",
    "-i",
    "-J",
    "-L",
    "-l",
    "-m",
    "-O",
    "-o",
  ]
    .concat(["-p", "-P", "-Q", "-R", "-S", "-W", "-w", "-B", "-s"]);
  const options = parseOptions(input.args, valued, input.verb === "ssh");
  for (const option of options.values.get("-o") ?? []) {
    const m = /^(ProxyCommand|LocalCommand|KnownHostsCommand|AuthorizedKeysCommand)[\s=]+(.*)$/is
      .exec(option);
    if (m) {
      input.parts.add("code_execution", `${m[1]} runs a local command`);
      input.parts.payload(m[2], `${m[1]} runs`);
    }
  }
  for (const file of [...(options.values.get("-i") ?? []), ...(options.values.get("-F") ?? [])]) {
    input.parts.read(file);
  }
  if (input.verb === "ssh") {
    const host = options.operands[0];
    if (host === undefined) return input.parts.add("read", "prints its version or usage");
    input.parts.network(hostOf(host), "opens a remote shell", portOf(host) ?? port(options, "-p"));
    return;
  }
  if (options.operands.length === 0) return input.parts.add("read", "prints its version or usage");
  remoteCopy(input, options.operands);
}

/** Operands like `host:path`, `user@host:path` or `rsync://` are remote; the rest are local. */
function remoteCopy(input: RuleInput, operands: string[], deletes = "none"): void {
  const remote = (o: string) => /^[^/]*:/.test(o) && !/^[a-zA-Z]:\\/.test(o);
  const hosts = operands.filter(remote).map((o) => hostOf(o.replace(/^rsync:\/\//, "")));
  for (const host of new Set(hosts)) input.parts.network(host, "copies to or from a remote host");
  const local = operands.filter((o) => !remote(o));
  const destination = operands.length > 1 ? operands.at(-1) : undefined;
  for (const source of local.filter((o) => o !== destination)) {
    if (deletes === "sources") input.parts.remove(source);
    else input.parts.read(source);
  }
  if (destination !== undefined && !remote(destination)) {
    if (deletes === "destination") input.parts.remove(destination);
    input.parts.write(destination);
  }
  if (hosts.length === 0 && operands.length === 0) input.parts.network("");
}

function rsync(input: RuleInput): void {
  const valued = ["-e", "--rsh", "--rsync-path", "--exclude", "--include", "--exclude-from"]
    .concat([
      "--include-from",
      "--files-from",
      "-f",
      "--filter",
      "--password-file",
      "-T",
      "--temp-dir",
    ])
    .concat([
      "--log-file",
      "--backup-dir",
      "--suffix",
      "--chmod",
      "--chown",
      "-M",
      "--remote-option",
    ]);
  const options = parseOptions(input.args, valued);
  for (const rsh of [...(options.values.get("-e") ?? []), ...(options.values.get("--rsh") ?? [])]) {
    input.parts.add("code_execution", "rsync runs a remote shell command");
    input.parts.payload(rsh, "rsync -e runs");
  }
  const deletes = options.flags.has("--remove-source-files")
    ? "sources"
    : [...options.flags].some((f) => /^--(del|delete.*)$/.test(f))
    ? "destination"
    : "none";
  remoteCopy(input, options.operands, deletes);
}

/** `nc -e`/`-c`, `socat EXEC:`/`SYSTEM:` run commands wired to a socket. */
function netcat(input: RuleInput): void {
  const options = parseOptions(
    input.args,
    "-e -c -p -s -w -i -q -x -X -P -T -V -I -O --exec --sh-exec",
  );
  for (
    const command of ["-e", "-c", "--exec", "--sh-exec"].flatMap((f) => options.values.get(f) ?? [])
  ) {
    input.parts.add("code_execution", "wires a command to a network socket");
    input.parts.payload(command, `${input.verb} runs`);
  }
  if (input.verb === "socat") {
    for (const address of options.operands) {
      const m = /^(EXEC|SYSTEM):(.*)$/is.exec(address);
      if (m) {
        input.parts.add("code_execution", "wires a command to a network socket");
        input.parts.payload(m[2].replace(/,.*$/, ""), "socat runs");
      }
    }
    const hosts = options.operands.map((a) =>
      /^(?:TCP|UDP|OPENSSL|SSL)[46]?(?:-CONNECT)?:([^:,]+)/i.exec(a)?.[1]
    ).filter((h) => h);
    input.parts.network(hosts[0] ?? "");
    return;
  }
  input.parts.network(
    options.operands[0] && !has(options, "-l") ? hostOf(options.operands[0]) : "",
  );
}

function port(options: ReturnType<typeof parseOptions>, ...flags: string[]): number | undefined {
  const value = flags.flatMap((f) => options.values.get(f) ?? [])[0];
  return value !== undefined && /^\d{1,5}$/.test(value) ? Number(value) : undefined;
}

/** Database clients: `-h`/`--host` and `-p`/`-P`/`--port`; a loopback host is the session's. */
function databaseClient(input: RuleInput): void {
  const mysql = /^(mysql|mariadb)$/.test(input.verb);
  const options = parseOptions(
    input.args,
    "-h --host -p --port -P -U --username -u --user -d --dbname -D --database -c --command -f --file -n -a --auth",
  );
  if (versionOrHelp(input.args)) return input.parts.add("read", "prints its version or help");
  const url = input.args.find((a) => /^[a-z][a-z0-9+.-]*:\/\//i.test(a));
  if (url !== undefined) return networkTo(input, [url]);
  const host = [...(options.values.get("-h") ?? []), ...(options.values.get("--host") ?? [])][0];
  const p = mysql ? port(options, "-P", "--port") : port(options, "-p", "--port");
  // Without a host the client uses the default (a Unix socket or localhost).
  input.parts.network(host ?? "localhost", `${input.verb} talks to a database`, p);
}

function plainNetwork(input: RuleInput): void {
  const options = parseOptions(input.args);
  if (versionOrHelp(input.args)) return input.parts.add("read", "prints its version or help");
  const urls = input.args.flatMap(urlHosts);
  if (urls.length > 0) { for (const host of new Set(urls)) input.parts.network(host); }
  else if (
    /^(ping6?|traceroute6?|tracepath|mtr|dig|nslookup|host|drill|whois|telnet)$/.test(input.verb)
  ) {
    const operand = options.operands.find((o) => !o.startsWith("@") && !/^[A-Z]+$/.test(o));
    input.parts.network(operand ? hostOf(operand) : "");
  } else input.parts.network("", `${input.verb} talks to a remote service`);
}

const PLAIN = (
  "aria2c axel http https xh xhs curlie httpie ftp tftp lftp rclone dig nslookup host drill ping " +
  "ping6 traceroute traceroute6 tracepath mtr whois telnet gh glab hub aws gcloud gsutil az doctl " +
  "heroku fly flyctl vercel netlify firebase kubectl helm terraform tofu pulumi ansible " +
  "ansible-playbook vault nmap yt-dlp youtube-dl mosh ngrok cloudflared tailscale s3cmd " +
  "mongo sqlcmd ollama twine"
).split(/\s+/);

/** Add the network family to `rules`. */
export function addNetworkRules(rules: Map<string, Rule>): void {
  rules.set("curl", curl);
  rules.set("wget", wget);
  rules.set("wget2", wget);
  for (const verb of ["ssh", "scp", "sftp"]) rules.set(verb, ssh);
  rules.set("rsync", rsync);
  for (const verb of ["nc", "ncat", "netcat", "socat"]) rules.set(verb, netcat);
  for (const verb of PLAIN) rules.set(verb, plainNetwork);
  for (const verb of ["psql", "mysql", "mariadb", "redis-cli", "mongosh"]) {
    rules.set(verb, databaseClient);
  }
}
