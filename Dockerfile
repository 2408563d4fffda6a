# The gateway as a container image: one node of docker-compose.yml (docs/deployment.md).
# Two stages: the first installs everything and compiles; the image people run holds the compiled
# code and the production dependencies only (no TypeScript, test tools or browsers).

FROM node:20-slim AS build
WORKDIR /app
# Dependencies first, in their own layer: a change to the sources does not download them again.
# Without scripts: `prepare` builds from sources that are not copied yet.
# agent/ is a workspace of the package: npm ci needs its package.json to install its part.
COPY package.json package-lock.json ./
COPY agent/package.json agent/
RUN npm ci --no-audit --no-fund --ignore-scripts
COPY . .
RUN npm run build

FROM node:20-slim
WORKDIR /app
COPY package.json package-lock.json ./
COPY agent/package.json agent/
# Production dependencies only; no scripts, since `prepare` would look for TypeScript to build.
RUN npm ci --omit=dev --no-audit --no-fund --ignore-scripts && npm cache clean --force
# What runs: the command, the build script it imports (it finds dist/ shipped without sources
# and builds nothing), the compiled code with the panel, and the README, whose configuration
# table `serve --help` prints.
COPY bin bin
COPY scripts/build.js scripts/agent-pack.js scripts/panel-build.js scripts/source-files.js scripts/
COPY --from=build /app/dist dist
COPY README.md ./
# DATA_DIR private to the user the gateway runs as; the gateway keeps what it creates so. The
# directories a volume is mounted on exist here already, so that a new volume is the user's too.
RUN mkdir -p data/recordings data/media \
 && chown -R node:node data \
 && chmod -R go-rwx data

USER node
ENV DATA_DIR=/app/data
# HTTP (API, panel, /mqtt over WebSocket) and MQTT over TCP.
EXPOSE 3000 1883

# What `npm start` runs, without npm in between: SIGTERM from `docker stop` reaches the gateway
# itself, which then drains and closes its connections before the container goes.
CMD ["node", "bin/sms-gateway.js", "serve"]
