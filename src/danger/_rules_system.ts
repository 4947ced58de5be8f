/**
 * The system: package managers of the OS, services, mounts, kernel modules, users, firewalls,
 * disks and power (`privileged`, `destructive`), scheduled jobs (`system_write`), containers
 * (`privileged`: the daemon is root), process control (contained by the sandbox's PID
 * namespace), and `odek` itself (`system_write`, so a run cannot rewrite its own policy).
 *
 * @module
 */
import { parseOptions, type Rule, type RuleInput } from "./_rule.ts";

function privileged(detail: string): Rule {
  return (input) => input.parts.add("privileged", detail);
}

/** A verb whose listed subcommands (first operand) only read; anything else is `kind`. */
function readUnless(readSubs: string[], otherwise: Rule): Rule {
  return (input) => {
    const sub = parseOptions(input.args).operands[0] ?? "";
    if (
      readSubs.includes(sub) || input.args.every((a) => /^(-h|--help|-V|--version|-v)$/.test(a))
    ) {
      input.parts.add("read", "reads system state");
    } else otherwise(input);
  };
}

const OS_PACKAGES: Rule = (input) => {
  input.parts.add("privileged", "changes the system's packages");
  input.parts.network("", "downloads system packages");
  input.parts.add("system_write", "installs outside the workspace");
};

const BREW: Rule = (input) => {
  input.parts.network("", "downloads packages");
  input.parts.add("code_execution", "runs the packages' install steps");
  input.parts.add("system_write", "installs outside the workspace");
};

/** `mkfs`, `fdisk`, `wipefs` …: any use can erase a disk (odek-go §5.1). */
const DISK = (input: RuleInput) => {
  input.parts.add(
    "destructive",
    "can erase a disk or partition",
    input.args.filter((a) => a.startsWith("/dev/")),
  );
  input.parts.add("privileged", "needs root");
};

const POWER = (input: RuleInput) => {
  input.parts.add("destructive", "stops or restarts the machine");
  input.parts.add("privileged", "needs root");
};

function init(input: RuleInput): void {
  if (input.args.some((a) => /^[0-6sS]$/.test(a))) POWER(input);
  else input.parts.add("privileged", "talks to the init system");
}

function crontab(input: RuleInput): void {
  const options = parseOptions(input.args, ["-u"]);
  if (options.flags.has("-l")) input.parts.add("read", "lists scheduled jobs");
  else if (options.flags.has("-r")) {
    input.parts.add("destructive", "deletes the user's scheduled jobs");
  } else input.parts.add("system_write", "installs scheduled jobs that run outside the sandbox");
}

function docker(input: RuleInput): void {
  const sub =
    parseOptions(input.args, ["-H", "--host", "-c", "--context", "--config", "-l", "--log-level"])
      .operands;
  const readSubs = [
    "ps",
    "images",
    "version",
    "info",
    "logs",
    "inspect",
    "top",
    "stats",
    "history",
    "port",
    "diff",
    "search",
  ];
  if (
    readSubs.includes(sub[0] ?? "") ||
    (sub[0] === "compose" &&
      ["ps", "logs", "config", "ls", "images", "version"].includes(sub[1] ?? ""))
  ) {
    input.parts.add("read", `${input.verb} ${sub[0]} reads container state`);
    return;
  }
  input.parts.add("privileged", `${input.verb} controls containers through a root daemon`);
  if (["pull", "push", "build", "run", "login", "compose"].includes(sub[0] ?? "")) {
    input.parts.network("", `${input.verb} ${sub[0]} may reach a registry`);
  }
}

function sysctl(input: RuleInput): void {
  const options = parseOptions(input.args, ["-p", "--load"]);
  if (
    options.flags.has("-w") || options.values.size > 0 ||
    options.operands.some((o) => o.includes("="))
  ) {
    input.parts.add("privileged", "changes kernel parameters");
  } else input.parts.add("read", "reads kernel parameters");
}

function ip(input: RuleInput): void {
  const words = parseOptions(input.args, ["-n", "-netns", "-f", "-family"]).operands;
  if (
    words.some((w) =>
      /^(add|del|delete|set|change|replace|flush|append|prepend|exec|attach|detach)$/.test(w)
    )
  ) {
    input.parts.add("privileged", "changes network configuration");
  } else input.parts.add("read", "reads network configuration");
}

/** `kill`, `pkill` …: only processes inside the sandbox's PID namespace are visible. */
function kill(input: RuleInput): void {
  input.parts.add("code_execution", "signals processes (those of the sandbox only)");
}

function odek(input: RuleInput): void {
  input.parts.add(
    "system_write",
    "odek invoking itself can change its own configuration and sessions",
  );
}

function words(text: string): string[] {
  return text.split(/\s+/);
}

const OS_PMS = "apt apt-get aptitude dpkg yum dnf rpm pacman apk zypper snap flatpak emerge port " +
  "pkg nix-env";
const OS_PM_READS = "list search show policy info -l -L -s -q --list query -Q -Ss -Qi madison " +
  "depends rdepends list-installed";
const DISKS = "mkfs mke2fs mkfs.ext4 mkfs.ext3 mkfs.xfs mkfs.btrfs mkfs.vfat mkfs.fat mkswap " +
  "fdisk sfdisk cfdisk gdisk sgdisk parted wipefs blkdiscard badblocks cryptsetup zerofree hdparm";
const SYSTEMCTL_READS = "status is-active is-enabled is-failed list-units list-unit-files " +
  "list-timers show cat list-dependencies get-default";
const ADMIN = "mount umount losetup modprobe insmod rmmod swapon swapoff setcap capsh chattr " +
  "iptables ip6tables iptables-restore nft ufw firewall-cmd route tc useradd usermod userdel " +
  "groupadd groupdel groupmod gpasswd passwd chpasswd chsh chfn visudo vipw newgrp setenforce " +
  "semanage sysrq kexec grub-install update-grub update-initramfs ldconfig update-alternatives " +
  "timedatectl hostnamectl localectl loginctl machinectl";

function date(input: RuleInput): void {
  if (input.args.some((a) => /^(-s|--set(=.*)?)$/.test(a))) {
    input.parts.add("privileged", "sets the system clock");
  } else input.parts.add("read", "reads");
}

function hostname(input: RuleInput): void {
  const options = parseOptions(input.args, ["-F", "--file"]);
  if (options.operands.length > 0 || options.values.size > 0) {
    input.parts.add("privileged", "sets the host name");
  } else input.parts.add("read", "reads");
}

function ifconfig(input: RuleInput): void {
  if (input.args.length > 1) input.parts.add("privileged", "changes network configuration");
  else input.parts.add("read", "reads network configuration");
}

/** Add the system family to `rules`. */
export function addSystemRules(rules: Map<string, Rule>): void {
  for (const verb of words(OS_PMS)) rules.set(verb, readUnless(words(OS_PM_READS), OS_PACKAGES));
  rules.set("apt-cache", (input) => input.parts.add("read", "reads the package index"));
  const brewReads = words("list ls info search deps config doctor leaves outdated");
  rules.set("brew", readUnless(brewReads, BREW));
  for (const verb of words(DISKS)) rules.set(verb, DISK);
  for (const verb of words("shutdown reboot halt poweroff")) rules.set(verb, POWER);
  rules.set("init", init);
  rules.set("telinit", init);
  const services = privileged("changes system services");
  rules.set("systemctl", readUnless(words(SYSTEMCTL_READS), services));
  rules.set("service", readUnless(["--status-all"], services));
  rules.set("journalctl", (input) => input.parts.add("read", "reads system logs"));
  for (const verb of words("launchctl at batch atrm")) {
    rules.set(
      verb,
      (i) => i.parts.add("system_write", "schedules work that runs outside the sandbox"),
    );
  }
  rules.set("crontab", crontab);
  for (const verb of words(ADMIN)) rules.set(verb, privileged(`${verb} changes the system`));
  rules.set("sysctl", sysctl);
  rules.set("ip", ip);
  rules.set("ifconfig", ifconfig);
  for (const verb of words("docker podman nerdctl docker-compose buildah ctr crictl")) {
    rules.set(verb, docker);
  }
  for (const verb of words("kill pkill killall renice")) rules.set(verb, kill);
  rules.set("odek", odek);
  rules.set("date", date);
  rules.set("hostname", hostname);
}
