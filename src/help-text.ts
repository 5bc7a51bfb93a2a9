// The help text: the commands, every flag, and the variables most people set (every setting is in
// docs/configuration.md, which the settings table's test holds to it).

import { TOOLSETS } from './settings.js';

/** What `--help` prints. */
export const USAGE = `Usage: posthog-replay-mcp [options]         serve MCP (stdio unless --transport http)
       posthog-replay-mcp doctor [options]  check the key, host, scopes and PostHog's throttle, then exit

MCP server for PostHog session recordings and projects. On/off settings take 1/true/yes/on or
0/false/no/off; a value a setting does not accept is refused, naming it: doctor and HTTP exit 2,
and over stdio the server answers every call with the error (nothing is sent to PostHog).
Every setting: docs/configuration.md.

Options:
  --sandbox                 run against the embedded demo upstream (no PostHog account needed)
  --sandbox-api today|2024  the PostHog the sandbox imitates: today's Cloud (default) or the
                            2024 API (env POSTHOG_SANDBOX_API)
  --sandbox-scale           add a project at real scale to the sandbox: a generated week of
                            ~3,000 recorded sessions with planted problems (env POSTHOG_SANDBOX_SCALE=on)
  --read-only               register only read-only tools (env POSTHOG_READ_ONLY=on)
  --no-confirm              do not ask the user before deletes and project changes
                            (env POSTHOG_CONFIRM_DESTRUCTIVE=0), for unattended agents
  --toolsets LIST           comma list of: ${TOOLSETS.join(', ')} (env POSTHOG_TOOLSETS)
  --cache memory|off|URL    where digests are kept so a recording is not read twice: in this
                            process (default), nowhere, or a shared redis://… (env MCP_DIGEST_CACHE;
                            prefer the variable for a URL with a password)
  --transport stdio|http    default stdio; http serves Streamable HTTP at /mcp
  --port N                  HTTP port (default 3000)
  --host ADDR               HTTP bind address (default 127.0.0.1)
  --allowed-hosts LIST      HTTP: Host header values accepted, e.g. mcp.example.com,10.0.0.5:3000
                            ("*" = any; default: localhost/127.0.0.1/[::1] with the port when
                            bound to loopback, any otherwise) (env MCP_ALLOWED_HOSTS)
  --allowed-origins LIST    HTTP: browser Origins accepted besides those of allowed hosts
                            (env MCP_ALLOWED_ORIGINS)
  --help, --version

Environment:
  POSTHOG_PERSONAL_API_KEY  personal API key (required unless --sandbox or HTTP per-user keys)
  POSTHOG_HOST              us | eu | https://posthog.example.com (default us)
  POSTHOG_PROJECT_ID        default project for recording tools (a number or @current)
  POSTHOG_TIMEOUT_MS        upstream request timeout in ms (default 30000)
  POSTHOG_MAX_RESPONSE_BYTES  largest JSON answer read from PostHog (default 8388608, 8 MiB)
  POSTHOG_CALL_MAX_REQUESTS upstream requests one tool call may make (default 100)
  POSTHOG_CALL_TIMEOUT_MS   wall clock of one tool call, waits included (default 120000)
  POSTHOG_REPLAY_RATE_LIMITS  PostHog's replay throttle: auto (default: full speed until PostHog
                            answers 429, then that key paced to the budget learned from it) |
                            free | paid | enterprise | e.g. 12/min,60/h (paced up front) | off
  POSTHOG_THROTTLE_WAIT_MS  how long summary/snapshots/triage may wait for that throttle (default 40000)
  POSTHOG_TRIAGE_REPLAY_BUDGET  list + snapshot requests a triage spends on evidence (default 12)
  POSTHOG_MAX_CONCURRENCY_PER_KEY  upstream requests in flight per API key (default 8)
  POSTHOG_SANDBOX=on        same as --sandbox
  MCP_TOOL_SCHEMAS          full | compact (every input schema under 5,000 bytes, timezone as a
                            string) | auto (default: compact for Codex, full for other clients)

HTTP transport:
  Without POSTHOG_PERSONAL_API_KEY, each caller sends its own PostHog personal API key as
  "Authorization: Bearer phx_…", used for that caller's requests only.
  MCP_AUTH_TOKEN            with the server's own key: the token callers must send as
                            "Authorization: Bearer …" (at least 16 characters). Required
                            to listen on a non-loopback address with the server's own key.
  MCP_MAX_CONCURRENCY       MCP requests handled at once; more wait their turn (default 64)
  MCP_MAX_CONCURRENCY_PER_USER  of those, how many one caller's key may have (default 16)
  MCP_MAX_QUEUE_PER_USER    calls one caller may have waiting; more get 503 (default 64)
  MCP_QUEUE_TIMEOUT_MS      longest wait for a turn, then 503 with Retry-After (default 30000)
  MCP_SHUTDOWN_TIMEOUT_MS   on SIGTERM/SIGINT, how long running calls may finish (default 10000)
  MCP_OAUTH=on              also an OAuth 2.1 server for clients that sign in (Claude.ai, ChatGPT):
                            their MCP endpoint is /oauth/mcp; the consent page asks for the key
  MCP_OAUTH_SECRET          seals OAuth tokens (at least 32 characters; required with MCP_OAUTH)
  MCP_OAUTH_PREVIOUS_SECRET the secret being replaced: its tokens still open while they live
  MCP_PUBLIC_URL            the https origin clients reach the server at (needed beyond loopback)
  MCP_WATCH_SECRET          with MCP_PUBLIC_URL: the replay's watch links (a browser player) over HTTP

Digest cache:
  MCP_DIGEST_CACHE          memory (default) | off | redis://[:password@]host:port (same as --cache)
  MCP_DIGEST_CACHE_MB       in-process cache size in MiB (default 64)
  MCP_DIGEST_CACHE_TTL_S    how long a digest is kept, in seconds (default 86400)
`;
