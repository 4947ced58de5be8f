/**
 * `--help` text of every command. Kept true by tests that compare it with the flag parsers.
 *
 * @module
 */

/** Help per command (`main` for `odek --help`). */
export const HELP_TEXT: Record<
  | "main"
  | "run"
  | "chat"
  | "continue"
  | "undo"
  | "rewind"
  | "sessions"
  | "models"
  | "classify"
  | "doctor"
  | "init"
  | "config"
  | "mcp"
  | "serve"
  | "worker",
  string
> = {
  main: `odek — an autonomous agent runtime whose tools run in permission-scoped sandboxes

Usage:
  odek                               an interactive session in this workspace (also odek chat)
  odek run [flags] "<task>"          run a task (task from "-" or piped stdin too)
  odek continue [session] ["msg"]    resume this workspace's newest session, or the named one
                                     (at a terminal it stays open; --print: one run)
  odek undo [session]                undo the last turn: its file changes and its messages
  odek rewind [session] [--to <n>]   list the turns, or go back to before turn n
  odek sessions list|show|export|delete
  odek models                        list the models the provider offers
  odek classify "<command>"          show how a shell command is classified, and the decision
  odek doctor                        check the sandbox layers, versions and the workspace
  odek init [--project]              write a commented config.jsonc (or the project's odek.jsonc)
  odek config show                   the configuration in effect, each value with its layer
  odek mcp list|login|logout         the configured MCP servers, their tools, OAuth logins
  odek mcp serve [--http ADDR:PORT]  odek as an MCP server (stdio, or Streamable HTTP)
  odek serve [--port N]              the web page, REST API and WebSocket on 127.0.0.1
  odek worker --queue <postgres-url> take durable runs off a PostgreSQL queue (docs/scale_out.md)
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
  --allow-host-port <n>   let programs reach the host's 127.0.0.1:<n> (a local database;
                          repeatable); other loopback ports are the session's own
  --max-iterations <n>    model turns before stopping with exit code 4 (default 90), after
                          one tool-less request for a partial summary
  --max-runtime <d>       wall-clock budget: 90, 90s, 5m, 2h (exit code 4; 0 = off)
  --max-tool-calls <n>    tool-call budget, counted over the session (exit code 4)
  --max-input-tokens <n>  prompt-token budget, summed over the session (exit code 4); a
                          request whose prompt alone is over what is left is not sent
  --max-output-tokens <n> completion-token budget, summed over the session (exit code 4)
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
                          terminal, and are denied when there is none. Writes to files the
                          host runs later (git hooks and config, .envrc) always need a person
  -h, --help              show this help

The API key is read only from ODEK_API_KEY or OPENAI_API_KEY.
Token, cost and tool-call budgets count the whole session: a continued session keeps its spend.
Exit codes: 0 ok, 1 error, 2 usage, 4 budget exhausted, 5 stalled (the same tool calls over
and over after a hint), 130 interrupted, 143 terminated.`,
  chat: `Usage: odek chat [flags] ["first message"]   (or just: odek)

Opens an interactive session in the workspace: each message is a run on one session host, so
tool children, background jobs and "always" approvals last until /new or /exit. Answers stream
as terminal markdown; a status line shows the elapsed time and tokens; Esc (or Ctrl-C once)
interrupts the step and returns to the prompt. Type /help for the commands. Needs a terminal:
for scripts and CI use odek run.

Flags:
  --model <id>  --base-url <url>  --provider <name>  --workspace <dir>  --dedicated-workspace
  --add-dir <dir>[:ro]  --allow-host-port <n>  --system <text>  --trust <level>
  --max-iterations <n>  --max-runtime <d>  --max-tool-calls <n>  --max-input-tokens <n>
  --max-output-tokens <n>  --max-cost-usd <x>  -h, --help

Keys, commands and limits: docs/interactive.md`,
  continue: `Usage: odek continue [session] ["message"] [flags]

Resumes the newest session of the current workspace (--workspace, else the current directory),
or the named one, with the workspace, model and base URL it recorded (flags override); a
session that works in another directory says so first. Tool calls a crash left without a result are marked interrupted
and not re-run. With a message, it is added as the next user turn. At a terminal the session
then stays open for more messages (see odek chat); --print, --json or a stdin that is not a
terminal make it one run that exits with the run's code.

Flags:
  --print  --model <id>  --base-url <url>  --provider <name>  --workspace <dir>  --dedicated-workspace
  --add-dir <dir>[:ro]  --max-iterations <n>
  --max-runtime <d>  --max-tool-calls <n>  --max-input-tokens <n>  --max-output-tokens <n>
  --max-cost-usd <x>  --events-jsonl <file>
  --json  --record <file>  --replay <file>  --trust <level>  --yes[=<class>,…]  -h, --help

A run stopped by its iteration budget continues without a message. Token, cost and tool-call
budgets count what the session spent before (it says how much is left). Calls that were waiting
for approval when the run stopped are asked again (on a terminal or with --yes), else answered
as not started; a message answers them as not started.`,
  undo: `Usage: odek undo [session] [flags]

Takes back the last turn of the session (default: the newest session of the current workspace):
its files go back to the checkpoint taken before the turn changed any, and the next request
leaves the turn's messages out (the journal keeps them). Files changed outside odek since its
last checkpoint are listed and never overwritten without your answer. .gitignore'd paths are
never touched (and listed when they changed); the files as they were are saved in a checkpoint.

Flags:
  --files            restore only the files (the conversation stays)
  --conversation     take back only the conversation (the files stay)
  --keep-changed     keep files changed outside odek, restore the rest (no question)
  --overwrite        overwrite files changed outside odek too (no question)
  --workspace <dir>  pick the session of this workspace (default: the current directory)
  --json             print what was done as JSON
  -h, --help         show this help`,
  rewind: `Usage: odek rewind [session] [--to <turn>] [flags]

Without --to: lists the session's turns (default: the newest session of the current
workspace). With --to <turn>: goes back to before that turn, like odek undo (which is
odek rewind --to <last turn>): files, conversation, or both.

Flags:
  --to <turn>        the turn to go back to before (see the list)
  --files  --conversation  --keep-changed  --overwrite  --workspace <dir>  --json  -h, --help
                     as for odek undo`,
  sessions: `Usage: odek sessions <list|show|export|delete> [id]

  list                 sessions, newest first: id, last change, messages, tool calls,
                       title, state, workspace
  show [id]            print the transcript (default: the newest session)
  export <id>          print the session as JSON ({ meta, messages }) on stdout
  delete <id>          delete the session (refused while it runs)

Flags:
  --workspace <dir>    list only the sessions that work in this directory
  --json               list: the sessions as one JSON array (each { id, title, workspace,
                       model, createdAt, updatedAt, messageCount, toolCallCount, locked, … })
  --queue <url>        the sessions of a durable queue's PostgreSQL database (docs/scale_out.md)`,
  models: `Usage: odek models [flags]

Lists the models the provider offers (GET <base URL>/models), one id per line with its owner and
context window when the server says. Uses the configured base URL and key, like a run.

Flags:
  --base-url <url>     another OpenAI-compatible base URL
  --provider <name>    a provider preset (its base URL and key variable); --base-url wins
  --json               print { baseUrl, models } as JSON
  -h, --help           show this help`,
  serve: `Usage: odek serve [flags]

Serves the web page, the REST API (GET /api/openapi.json describes it), Server-Sent Events and a
WebSocket over odek's runtime. Prints once an address carrying this instance's token; every API
route needs it (the page's cookie, or Authorization: Bearer). Runs go on their own session hosts,
each session in its own folder of the dedicated workspace unless it names one under a
--workspace-root. Runs still going when it stops are resumed at the next start. Docs: docs/serve.md

Flags:
  --host <address>         the address to bind (default 127.0.0.1)
  --port <n>               the port (default 8080; 0: any free port)
  --allow-remote           allow a non-loopback --host (needs --allowed-host; prints a warning)
  --allowed-host <name>    a Host name clients use to reach it (repeatable)
  --max-runs <n>           runs going at once, the rest queue (default 4)
  --workspace-root <dir>   a root under which a session may name its workspace (repeatable)
  --queue <postgres://…>   put runs on this durable queue for odek worker processes; sessions
                           live in that database (docs/scale_out.md; default 1000 --max-runs)
  -h, --help               show this help`,
  classify: `Usage: odek classify [flags] "<command>"

Classifies a shell command with odek's danger classifier and prints every part (risk class,
sub-command, targets), the decision at the trust level, and the reason. Nothing is run. Use "-"
to read the command from stdin. Runs use the same classifier for every tool call.

Flags:
  --trust <level>      untrusted, standard or trusted (default: config "trustLevel")
  --workspace <dir>    the workspace paths are judged against (default: the current directory)
  --add-dir <dir>[:ro] an added directory, as for odek run (repeatable)
  --json               print the verdict as JSON: { parts, decision, reason }
  -h, --help           show this help

Deny rules of the user config and of the workspace's odek.jsonc apply as in a run: a part a
rule blocks names the rule, its layer and its file.`,
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
  -h, --help              show this help

It also lists each configuration layer it read: secrets.env, the user config, the workspace's
odek.jsonc, and misnamed files it does not read.`,
  init: `Usage: odek init [--project [--workspace <dir>]]

Writes a commented configuration file with every value commented out; an existing file is never
replaced.

  (no flag)               ODEK_HOME/config.jsonc: every key at its default
  --project               odek.jsonc in the workspace: only the keys a project may set (it may
                          only tighten each user's own settings), each with what counts
  --workspace <dir>       the workspace for --project (default: the current directory)
  -h, --help              show this help`,
  config: `Usage: odek config show [--workspace <dir>] [--json]

Prints the configuration a run in the workspace would use: every value with the layer it came
from (default, secrets.env, ODEK_HOME/config.jsonc, the workspace's odek.jsonc, an ODEK_*
variable, a flag), the layer files read, where the API key comes from (never its value), the
project's MCP servers and whether each is approved, and the warnings (project keys ignored).

  --workspace <dir>       the workspace (default: the current directory)
  --json                  print it as one JSON object
  -h, --help              show this help`,
  mcp: `Usage: odek mcp <list|login|logout|serve> [server] [flags]

  list              the servers of "mcpServers" (ODEK_HOME/config.jsonc): their kind and
                    sandbox, state, tools and last error as the last session saw them, and
                    whether an HTTP server is logged in
  login <server>    log in to an HTTP server now (OAuth 2.1): prints the authorization URL
                    (and opens it when a browser is available), waits for the redirect to
                    odek's loopback listener, stores the tokens (ODEK_HOME/mcp/oauth, 0600)
  logout <server>   forget the server's tokens and client registration
  serve             odek as an MCP server (also bare "odek mcp"): run_task and odek's
                    built-in tools, each call classified, approved and sandboxed; stdio by
                    default (stdout is the protocol's)

Flags:
  --json                  list: print JSON
  --http <addr:port>      serve: Streamable HTTP instead of stdio (e.g. 127.0.0.1:8765); prints
                          the URL with its secret token (ODEK_MCP_TOKEN sets the token)
  --allow-non-loopback    serve: bind an address that is not loopback
  --allow-host <name>     serve: another host name Host/Origin may carry (repeatable)
  -h, --help              show this help

Servers start with each session (in a sandbox for a stdio server); see docs/mcp.md.`,
  worker: `Usage: odek worker --queue <postgres://…> [flags]

Takes runs off the queue in PostgreSQL and runs each as a durable workflow: every model call and
tool call is a step whose result is kept, so a run whose worker dies continues on another worker
from its last completed step (a tool call that was going is recorded as interrupted, never run
again). Heartbeats a lease; takes over the runs of a worker whose lease expired. Sessions are kept
in the same database. Runs until SIGINT or SIGTERM. Docs: docs/scale_out.md

Flags:
  --queue <url>              the queue's database (postgres://user@host:port/db)
  --queue-name <name>        the queue (default odek-runs)
  --concurrency <n>          runs this worker runs at once (default 2)
  --queue-concurrency <n>    runs going at once over every worker (default no limit)
  --lease <seconds>          the lease without a heartbeat (default 15)
  --worker-id <id>           this worker's id (default worker-<random>)
  -h, --help                 show this help`,
};
