/**
 * Verbs that create, change, move or delete files: classified by where their targets lie
 * (design §3: in the workspace `local_write`, elsewhere `system_write`, deleting elsewhere
 * `destructive`, a protected root `blocked`).
 *
 * @module
 */
import { has, parseOptions, type Rule, type RuleInput } from "./_rule.ts";

function rm(input: RuleInput): void {
  const options = parseOptions(input.args);
  for (const target of options.operands) input.parts.remove(target);
  if (options.operands.length === 0) input.parts.add("read", "deletes nothing");
}

function shred(input: RuleInput): void {
  const options = parseOptions(input.args, "-n --iterations -s --size --random-source");
  for (const target of options.operands) {
    if (/^\/dev\/(sd|hd|vd|xvd|nvme|mmcblk|disk|loop|dm-|md)/.test(target)) {
      input.parts.add("destructive", "overwrites a disk", [target]);
    } else input.parts.remove(target);
  }
}

/** `cp`/`mv`/`install`/`ln`: sources are read (`mv` also removes them); the last operand is written. */
function copyLike(input: RuleInput): void {
  const { verb, parts } = input;
  const options = parseOptions(
    input.args,
    "-t --target-directory -S --suffix -m --mode -o --owner -g --group --backup",
  );
  const directory = options.values.get("-t") ?? options.values.get("--target-directory");
  const operands = options.operands;
  const sources = directory ? operands : operands.slice(0, -1);
  const destinations = directory ?? operands.slice(-1);
  if (verb === "install" && has(options, "-d", "--directory")) {
    for (const dir of operands) parts.write(dir);
    return;
  }
  for (const source of sources) {
    if (verb === "mv") parts.remove(source);
    else parts.read(source);
  }
  for (const destination of destinations) parts.write(destination);
  if (destinations.length === 0) parts.add("local_write", "writes in the workspace");
}

/** Every operand is written: `touch`, `mkdir`, `truncate`, `tee`, `mkfifo`, `rmdir` … */
function writeOperands(valued: string[]): Rule {
  return (input) => {
    const options = parseOptions(input.args, valued);
    for (const target of options.operands) input.parts.write(target);
    if (options.operands.length === 0) input.parts.add("read", "writes nothing");
  };
}

function removeOperands(input: RuleInput): void {
  const options = parseOptions(input.args);
  for (const target of options.operands) input.parts.remove(target);
}

/** `chmod MODE FILE…`: a setuid/setgid bit is `privileged`. */
function chmod(input: RuleInput): void {
  const options = parseOptions(input.args, ["--reference"]);
  const modes = options.values.has("--reference") ? [] : options.operands.slice(0, 1);
  const files = options.values.has("--reference") ? options.operands : options.operands.slice(1);
  const mode = modes[0] ?? "";
  if (/^[0-7]*[2-7][0-7]{3}$/.test(mode) || /(^|,)[ugoa]*[+=][rwxXt]*s/.test(mode)) {
    input.parts.add("privileged", "sets a setuid or setgid bit", files);
  }
  for (const file of files) input.parts.write(file);
}

/** `chown`/`chgrp`: giving files away needs root. */
function chown(input: RuleInput): void {
  const options = parseOptions(input.args, ["--reference", "--from"]);
  const files = options.values.has("--reference") ? options.operands : options.operands.slice(1);
  input.parts.add("privileged", "changes file ownership", files);
  for (const file of files) input.parts.write(file);
}

/** `dd if=… of=…`: the output by place; a block device is `blocked` (odek-go §5.1). */
function dd(input: RuleInput): void {
  let wrote = false;
  for (const arg of input.args) {
    const [key, value] = [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)];
    if (key === "of") {
      input.parts.write(value);
      wrote = true;
    } else if (key === "if") input.parts.read(value);
  }
  if (!wrote) input.parts.add("read", "copies to standard output");
}

const TAR_VALUED = [
  "-f",
  "--file",
  "-C",
  "--directory",
  "-T",
  "--files-from",
  "-X",
  "--exclude-from",
]
  .concat(["--to-command", "--checkpoint-action", "-I", "--use-compress-program", "--rsh-command"])
  .concat(["--info-script", "--new-volume-script", "-F", "-b", "-H", "--format", "-N", "-K", "-L"]);

/** `tar`: extraction writes under `-C`; `--to-command`, `--checkpoint-action=exec=`, `-I` run code. */
function tar(input: RuleInput): void {
  const { parts } = input;
  const args = [...input.args];
  if (args[0] && /^[a-zA-Z]+$/.test(args[0])) args[0] = `-${args[0]}`;
  const options = parseOptions(args, TAR_VALUED);
  const value = (...names: string[]) => names.flatMap((n) => options.values.get(n) ?? []);
  for (const command of value("--to-command", "--info-script", "--new-volume-script", "-F")) {
    parts.add("code_execution", "tar runs a command for each file");
    parts.payload(command, "tar runs");
  }
  for (const action of value("--checkpoint-action")) {
    const exec = /^exec=(.*)$/s.exec(action);
    if (exec) {
      parts.add("code_execution", "tar runs a checkpoint command");
      parts.payload(exec[1], "tar runs");
    }
  }
  for (const program of value("-I", "--use-compress-program", "--rsh-command")) {
    parts.add("code_execution", "tar runs a compression program");
    parts.payload(program, "tar runs");
  }
  const archives = value("-f", "--file");
  const extract = has(options, "-x", "--extract", "--get");
  const create = has(options, "-c", "--create", "-r", "--append", "-u", "--update");
  if (extract) {
    const dirs = value("-C", "--directory");
    for (const dir of dirs.length > 0 ? dirs : ["."]) parts.write(dir);
    if (has(options, "-P", "--absolute-names")) {
      parts.add("unknown", "extracts to the absolute paths the archive names");
    }
    for (const archive of archives) parts.read(archive);
  } else if (create) {
    for (const archive of archives) if (archive !== "-") parts.write(archive);
    for (const file of options.operands) parts.read(file);
  } else {
    parts.add("read", "lists an archive");
    for (const archive of archives) parts.read(archive);
  }
  for (const archive of archives) {
    if (/^[^/]*:/.test(archive)) parts.network(archive.split(":")[0], "tar reaches a remote host");
  }
}

function unzip(input: RuleInput): void {
  const options = parseOptions(input.args, ["-d", "-x", "-P"]);
  if (has(options, "-l", "-v", "-t", "-Z", "-p")) {
    input.parts.add("read", "lists an archive");
    return;
  }
  for (const dir of options.values.get("-d") ?? ["."]) input.parts.write(dir);
}

/** `zip -TT CMD` (`--unzip-command`) runs CMD to test the archive. */
function zip(input: RuleInput): void {
  const args = [...input.args];
  for (let i = 0; i < args.length; i++) {
    const m = /^(?:-TT|--unzip-command)(?:=(.*))?$/s.exec(args[i]);
    if (!m) continue;
    const command = m[1] ?? args[i + 1] ?? null;
    args.splice(i, m[1] === undefined ? 2 : 1);
    i--;
    input.parts.add("code_execution", "zip runs a test command");
    input.parts.payload(command, "zip runs");
  }
  const options = parseOptions(args, ["-b", "-n", "-t", "-x", "-i", "-P", "-O"]);
  if (options.operands.length > 0) input.parts.write(options.operands[0]);
}

/** `gzip`, `xz`, `bzip2` …: compress or decompress in place unless writing to stdout. */
function compressor(input: RuleInput): void {
  const options = parseOptions(input.args, ["-S", "--suffix", "-T", "--threads"]);
  if (
    has(options, "-c", "--stdout", "-l", "--list", "-t", "--test") || options.operands.length === 0
  ) {
    input.parts.add("read", "writes to standard output");
    return;
  }
  for (const file of options.operands) input.parts.write(file);
}

function patch(input: RuleInput): void {
  const options = parseOptions(
    input.args,
    "-p -i --input -d --directory -o --output -r -B -z -D -F -V",
  );
  const dir = options.values.get("-d") ?? options.values.get("--directory");
  const out = options.values.get("-o") ?? options.values.get("--output");
  for (const input_ of options.values.get("-i") ?? []) input.parts.read(input_);
  const targets = out ??
    (options.operands.length > 0 ? options.operands.slice(0, 1) : dir ?? ["."]);
  for (const target of targets) input.parts.write(target);
}

function mktemp(input: RuleInput): void {
  const options = parseOptions(input.args, ["-p", "--tmpdir", "--suffix"]);
  const dir = options.values.get("-p") ?? options.values.get("--tmpdir");
  if (dir) { for (const d of dir) input.parts.write(d); }
  else if (options.operands.some((t) => t.includes("/"))) input.parts.write(options.operands[0]);
  else {
    // In $TMPDIR: the session's private scratch unless the script set another.
    const tmpdir = input.command.state.vars.get("TMPDIR");
    const dir = tmpdir?.length === 1 ? tmpdir[0] : input.scope.paths.scratchDir;
    input.parts.write(`${dir}/tmp.XXXXXXXXXX`);
  }
}

/** Add the file-changing family to `rules`. */
export function addFileRules(rules: Map<string, Rule>): void {
  rules.set("rm", rm);
  rules.set("unlink", removeOperands);
  rules.set("rmdir", removeOperands);
  rules.set("shred", shred);
  for (const verb of ["cp", "mv", "install", "ln", "link"]) rules.set(verb, copyLike);
  rules.set("touch", writeOperands(["-d", "--date", "-r", "--reference", "-t"]));
  rules.set("mkdir", writeOperands(["-m", "--mode", "--context"]));
  rules.set("mkfifo", writeOperands(["-m", "--mode"]));
  rules.set("truncate", writeOperands(["-s", "--size", "-r", "--reference"]));
  rules.set("tee", writeOperands([]));
  rules.set("split", writeOperands(["-l", "-b", "-C", "-n", "-a", "--additional-suffix"]));
  rules.set("chmod", chmod);
  rules.set("chown", chown);
  rules.set("chgrp", chown);
  rules.set("dd", dd);
  rules.set("tar", tar);
  rules.set("bsdtar", tar);
  rules.set("unzip", unzip);
  rules.set("zip", zip);
  for (
    const verb of [
      "gzip",
      "gunzip",
      "xz",
      "unxz",
      "bzip2",
      "bunzip2",
      "zstd",
      "unzstd",
      "lz4",
      "brotli",
    ]
  ) {
    rules.set(verb, compressor);
  }
  rules.set("patch", patch);
  rules.set("mktemp", mktemp);
}
