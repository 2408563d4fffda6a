# The gateway as a container image: one node of docker-compose.yml (docs/deployment.md).
FROM node:20-slim

WORKDIR /app

# Dependencies first, in their own layer: a change to the sources does not download them again.
# Without scripts: `prepare` builds from sources that are not copied yet.
# agent/ is a workspace of the package: npm ci needs its package.json to install its part.
COPY package.json package-lock.json ./
COPY agent/package.json agent/
RUN npm ci --no-audit --no-fund --ignore-scripts

COPY . .
# Compiled here, once: the command finds dist/ fresh and never builds at start, when /app is
# not writable by the user it runs as.
RUN npm run build \
 && mkdir -p data/recordings \
 && chown -R node:node data

USER node
ENV DATA_DIR=/app/data
# HTTP (API, panel, /mqtt over WebSocket) and MQTT over TCP.
EXPOSE 3000 1883

# What `npm start` runs, without npm in between: SIGTERM from `docker stop` reaches the gateway
# itself, which then drains and closes its connections before the container goes.
CMD ["node", "bin/sms-gateway.js", "serve"]
