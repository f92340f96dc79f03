# The team relay (DATABASE_URL set): the headless relay with its embedded agent runtime.
# Build: docker build -t fault-relay .   Run several behind one address: compose.yaml.
FROM node:22-bookworm-slim

# ripgrep: the runtime's glob/grep tools. openssh-client: nothing in the relay needs it, but
# operators debugging device reachability from the container will.
RUN apt-get update -qq && apt-get install -y -qq --no-install-recommends ripgrep ca-certificates openssh-client \
 && rm -rf /var/lib/apt/lists/*

WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npx vite build --logLevel warn

# Never root: the relay needs no privilege, and its runtime runs agents.
RUN useradd --system --create-home --home-dir /home/relay relay && mkdir -p /app/logs /app/.relay-data && chown -R relay /app/logs /app/.relay-data
USER relay

ENV NODE_ENV=production RELAY_HOST=0.0.0.0 INGEST_PORT=8080
EXPOSE 8080
# SIGTERM from docker stop: the relay hands its incidents over (another relay adopts them at once).
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=15s --timeout=5s CMD node -e "fetch('http://127.0.0.1:8080/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
CMD ["npx", "tsx", "src/relay/main.ts"]
