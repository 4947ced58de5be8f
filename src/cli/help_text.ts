/**
 * `--help` text of every command. Kept true by tests that compare it with the flag parsers.
 *
 * @module
 */

/** Help per command (`main` for `odek --help`). */
export const HELP_TEXT: Record<
  "main" | "run" | "continue" | "sessions" | "classify" | "doctor" | "mcp",
  string
> = {
  main: `odek — an autonomous agent runtime whose tools run in permission-scoped sandboxes

Usage:
  odek run [flags] "<task>"          run a task (task from "-" or piped stdin too)
  odek continue [session] ["msg"]    resume the newest or the named session
  odek sessions list|show|export|delete
  odek classify "<command>"          show how a shell command is classified, and the decision
  odek doctor                        check the sandbox layers, versions and the workspace
  odek mcp list|login|logout         the configured MCP servers, their tools, OAuth logins
  odek --version

Run "odek <command> --help" for the flags of a command. Docs: docs/cli.md`,
  run: `Usage: odek run [flags] "<task>"

Runs the task: the model calls tools, each in a sandboxed child, until it answers.
The task may also come from stdin: odek run - < task.txt, or echo "..." | odek run

Flags:
  --model <id>            model id (config "model", ODEK_MODEL)
  --base-url <url>        OpenAI-compatible base URL (ODEK_BASE_URL, then OPENAI_BASE_URL)
  --provider <name>       provider preset: base URL, key variable, quirks (ODEK_PROVIDER):
                          openai, openrouter, groq, together, deepseek, mistral, gemini,
                          anthropic, ollama, lmstudio, vllm, llamacpp; --base-url overrides its URL
  --workspace <dir>       directory the tools work in (default: the current directory)
  --dedicated-workspace   work in the private directory beside ODEK_HOME (<ODEK_HOME>-workspace,
                          created with mode 0700; config "dedicatedWorkspace")
  --add-dir <dir>[:ro]    also grant this directory (repeatable; :ro read-only): bound at its
                          real path in every sandbox, writable when the workspace is
  --session <name>        a named session: continues it if it exists
  --max-iterations <n>    model turns before stopping with exit code 4 (default 90), after
                          one tool-less request for a partial summary
  --max-runtime <d>       wall-clock budget: 90, 90s, 5m, 2h (exit code 4; 0 = off)
  --max-tool-calls <n>    tool-call budget (exit code 4)
  --max-input-tokens <n>  prompt-token budget, summed over the run (exit code 4)
  --max-output-tokens <n> completion-token budget, summed over the run (exit code 4)
  --max-cost-usd <x>      estimated-cost budget in US dollars (needs the model's prices in the
                          config: models.<id>.inputCostPerMillionUsd/outputCostPerMillionUsd)
  --events-jsonl <file>   also append every event to this file (audit log, mode 0600)
  --system <text>         replace the default identity paragraph of the system prompt
  --json                  print run events as JSON lines on stdout (odek.event/v1)
  --record <file>         record every model request and streamed response to a cassette
  --replay <file>         answer model requests from a cassette, with no network
  --trust <level>         untrusted (reads only), standard (default), trusted
  --yes[=<class>,…]       approve every call that asks (except destructive, privileged,
                          unknown), or exactly the named classes; without it, asks go to the
                          terminal, and are denied when there is none
  -h, --help              show this help

The API key is read only from ODEK_API_KEY or OPENAI_API_KEY.
Exit codes: 0 ok, 1 error, 2 usage, 4 budget exhausted, 130 interrupted, 143 terminated.`,
  continue: `Usage: odek continue [session] ["message"] [flags]

Resumes the newest session, or the named one, with the workspace, model and base URL it
recorded (flags override). Tool calls a crash left without a result are marked interrupted
and not re-run. With a message, it is added as the next user turn.

Flags:
  --model <id>  --base-url <url>  --provider <name>  --workspace <dir>  --dedicated-workspace
  --add-dir <dir>[:ro]  --max-iterations <n>
  --max-runtime <d>  --max-tool-calls <n>  --max-input-tokens <n>  --max-output-tokens <n>
  --max-cost-usd <x>  --events-jsonl <file>
  --json  --record <file>  --replay <file>  --trust <level>  --yes[=<class>,…]  -h, --help

A run stopped by its iteration budget continues without a message.`,
  sessions: `Usage: odek sessions <list|show|export|delete> [id]

  list                 sessions, newest first
  show [id]            print the transcript (default: the newest session)
  export <id>          print the session as JSON ({ meta, messages }) on stdout
  delete <id>          delete the session (refused while it runs)`,
  classify: `Usage: odek classify [flags] "<command>"

Classifies a shell command with odek's danger classifier and prints every part (risk class,
sub-command, targets), the decision at the trust level, and the reason. Nothing is run. Use "-"
to read the command from stdin. Runs use the same classifier for every tool call.

Flags:
  --trust <level>      untrusted, standard or trusted (default: config "trustLevel")
  --workspace <dir>    the workspace paths are judged against (default: the current directory)
  --add-dir <dir>[:ro] an added directory, as for odek run (repeatable)
  --json               print the verdict as JSON: { parts, decision, reason }
  -h, --help           show this help`,
  doctor: `Usage: odek doctor [flags]

Reports which protection layers are active (Deno flags, bwrap and its version, the network
namespace, the egress guard, the docker engine), the deno that runs tool children, odek's
version, the config file and ODEK_HOME, and whether the workspace is usable. It starts a
trivial sandbox of the configured kind to prove it works. Exit code 1 when the configured
sandbox cannot start or the workspace is unusable.

Flags:
  --workspace <dir>       check this workspace (default: the current directory)
  --dedicated-workspace   check the dedicated workspace (creates it when missing, as runs do)
  --add-dir <dir>[:ro]    also check this added directory (repeatable)
  --json                  print the report as one JSON object
  -h, --help              show this help`,
  mcp: `Usage: odek mcp <list|login|logout> [server] [flags]

  list              the servers of "mcpServers" (ODEK_HOME/config.jsonc): their kind and
                    sandbox, state, tools and last error as the last session saw them, and
                    whether an HTTP server is logged in
  login <server>    log in to an HTTP server now (OAuth 2.1): prints the authorization URL
                    (and opens it when a browser is available), waits for the redirect to
                    odek's loopback listener, stores the tokens (ODEK_HOME/mcp/oauth, 0600)
  logout <server>   forget the server's tokens and client registration

Flags:
  --json            list: print JSON
  -h, --help        show this help

Servers start with each session (in a sandbox for a stdio server); see docs/mcp.md.`,
};
