# posthog-replay-mcp as a remote MCP server (stateless Streamable HTTP at /mcp, health at /healthz).
# Build: docker build -t posthog-replay-mcp .
# Run (per-user keys: each caller sends its own PostHog key as Bearer):
#   docker run -p 3000:3000 -e MCP_ALLOWED_HOSTS=mcp.example.com posthog-replay-mcp
# Run (one shared key behind an access token):
#   docker run -p 3000:3000 -e POSTHOG_PERSONAL_API_KEY=phx_… -e MCP_AUTH_TOKEN=… posthog-replay-mcp
# See README.md, "Deployment".

FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json tsconfig.json tsconfig.build.json ./
COPY src ./src
# The build's own steps: the player's HTML and the server bundle (dist/cli.js).
COPY scripts/build-app.mjs scripts/build-server.mjs ./scripts/
# npm ci runs the "prepare" script, which builds dist/ with the dev dependencies; then drop them.
RUN npm ci --no-audit --no-fund && npm prune --omit=dev

FROM node:20-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# The sandbox's real recordings (for --sandbox trials of the image).
COPY fixtures/recordings ./fixtures/recordings
USER node
EXPOSE 3000
HEALTHCHECK --interval=15s --timeout=3s --start-period=5s \
  CMD ["node", "-e", "fetch('http://127.0.0.1:3000/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# Exec form: node is PID 1 and receives SIGTERM itself, so running calls finish before it exits.
# (Listening beyond loopback with POSTHOG_PERSONAL_API_KEY set requires MCP_AUTH_TOKEN.)
CMD ["node", "dist/cli.js", "--transport", "http", "--host", "0.0.0.0", "--port", "3000"]
